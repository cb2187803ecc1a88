import { describe, expect, it } from 'vitest';
import { loggedArgs } from './logged-args.js';

describe('loggedArgs', () => {
  it('keeps text and metadata out, says they were there, and keeps the rest', () => {
    const args = { text: 'my bank PIN is 4711', metadata: { source: 'diary', mood: 'calm' }, tags: ['a'], private: true };
    const logged = loggedArgs(args);
    expect(logged).toEqual({ args: { tags: ['a'], private: true }, omitted: { text: '19 characters', metadata: '2 keys' } });
    expect(JSON.stringify(logged)).not.toContain('4711');
    expect(JSON.stringify(logged)).not.toContain('diary');
    expect(args.text).toBe('my bank PIN is 4711');
  });

  it('leaves arguments without content as they are', () => {
    expect(loggedArgs({ name: 'p2', ids: ['x'] })).toEqual({ args: { name: 'p2', ids: ['x'] } });
  });
});
