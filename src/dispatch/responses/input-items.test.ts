import { describe, expect, it } from 'vitest';
import { inputItemsPage } from './input-items.js';

const items = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, type: 'message' }));
const ids = (page: { data: Array<{ id: string }> }) => page.data.map((i) => i.id);

describe('input items pages', () => {
  it('lists newest first by default, 20 at a time', () => {
    const page = inputItemsPage(items, {});
    expect(ids(page)).toEqual(['e', 'd', 'c', 'b', 'a']);
    expect(page).toMatchObject({ object: 'list', first_id: 'e', last_id: 'a', has_more: false });
  });

  it('pages with limit and after, in either order', () => {
    const first = inputItemsPage(items, { order: 'asc', limit: '2' });
    expect(ids(first)).toEqual(['a', 'b']);
    expect(first.has_more).toBe(true);
    const second = inputItemsPage(items, { order: 'asc', limit: '2', after: first.last_id });
    expect(ids(second)).toEqual(['c', 'd']);
    expect(ids(inputItemsPage(items, { before: 'c' }))).toEqual(['e', 'd']);
  });

  it('refuses a bad query with the parameter named', () => {
    expect(() => inputItemsPage(items, { limit: '0' })).toThrow(/'limit'/);
    expect(() => inputItemsPage(items, { order: 'up' })).toThrow(/'order'/);
    expect(() => inputItemsPage(items, { after: 'zz' })).toThrow(/'after'/);
  });
});
