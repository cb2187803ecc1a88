import { describe, expect, it } from 'vitest';
import { own } from './own.js';

describe('own', () => {
  it('finds only what the record itself holds, never what Object.prototype has', () => {
    const record: Record<string, number> = { chat: 1 };
    expect(own(record, 'chat')).toBe(1);
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) expect(own(record, name), name).toBeUndefined();
    expect(own({ constructor: 2 } as Record<string, number>, 'constructor')).toBe(2);
  });
});
