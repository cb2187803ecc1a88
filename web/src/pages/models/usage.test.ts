import { describe, expect, it } from 'vitest';
import { slotsUsing } from './usage.js';

describe('slots using a model', () => {
  it('joins the registry\'s defaults with what the slots run, once each', () => {
    const slots = [
      { name: 'chat', model: 'tiny' },
      { name: 'embed', model: 'other' },
      { name: 'alt', model: 'tiny' },
    ];
    expect(slotsUsing({ id: 'tiny', used_by: ['chat', 'embed'] }, slots)).toEqual([
      { slot: 'alt', isDefault: false, isCurrent: true },
      { slot: 'chat', isDefault: true, isCurrent: true },
      { slot: 'embed', isDefault: true, isCurrent: false },
    ]);
    expect(slotsUsing({ id: 'nope', used_by: [] }, slots)).toEqual([]);
  });
});
