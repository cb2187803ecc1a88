import { describe, expect, it } from 'vitest';
import { boundsOf, checkFor, draftOf } from './check.js';

const integer = { type: 'integer', nullable: false, minimum: 0, maximum: 3600 };

describe('checkFor: an edit checked against its schema entry', () => {
  it('takes an integer within bounds and refuses the rest in the server words', () => {
    const check = checkFor(integer);
    expect(check('600')).toEqual({ ok: true, value: 600 });
    expect(check(' 0 ')).toEqual({ ok: true, value: 0 });
    expect(check('-1')).toEqual({ ok: false, problem: 'expected >= 0; got -1' });
    expect(check('3601')).toEqual({ ok: false, problem: 'expected <= 3600; got 3601' });
    expect(check('1.5')).toEqual({ ok: false, problem: 'expected an integer; got 1.5' });
    expect(check('abc')).toEqual({ ok: false, problem: 'expected an integer; got "abc"' });
    expect(check('')).toEqual({ ok: false, problem: 'expected an integer' });
  });

  it('reads an empty nullable number as null, and honours an exclusive minimum', () => {
    expect(checkFor({ type: 'integer', nullable: true, minimum: 100 })('')).toEqual({ ok: true, value: null });
    const above = checkFor({ type: 'number', nullable: false, exclusive_minimum: 0 });
    expect(above('0.5')).toEqual({ ok: true, value: 0.5 });
    expect(above('0')).toEqual({ ok: false, problem: 'expected > 0; got 0' });
  });

  it('holds strings to their enum, arrays to one item a line, booleans to a checkbox', () => {
    const channel = checkFor({ type: 'string', nullable: false, enum: ['stable', 'nightly'] });
    expect(channel('nightly')).toEqual({ ok: true, value: 'nightly' });
    expect(channel('beta')).toEqual({ ok: false, problem: 'expected one of stable, nightly; got "beta"' });
    expect(checkFor({ type: 'string', nullable: false })('')).toEqual({ ok: true, value: '' });
    expect(checkFor({ type: 'array<string>', nullable: false })(' .gguf\n\n.bin ')).toEqual({ ok: true, value: ['.gguf', '.bin'] });
    expect(checkFor({ type: 'boolean', nullable: false })(false)).toEqual({ ok: true, value: false });
    expect(checkFor({ type: 'any', nullable: false })('{')).toEqual({ ok: false, problem: 'expected JSON' });
  });

  it('starts each control from the value, and a draft of the value checks back to it', () => {
    const cases = [
      [integer, 300],
      [{ type: 'integer', nullable: true }, null],
      [{ type: 'boolean', nullable: false }, true],
      [{ type: 'array<string>', nullable: false }, ['a', 'b']],
      [{ type: 'string', nullable: false }, '127.0.0.1'],
    ] as const;
    for (const [description, value] of cases) expect(checkFor(description)(draftOf(description, value))).toEqual({ ok: true, value });
  });

  it('says the bounds in words', () => {
    expect(boundsOf(integer)).toBe('0 to 3600');
    expect(boundsOf({ type: 'integer', nullable: false, minimum: 1 })).toBe('>= 1');
    expect(boundsOf({ type: 'number', nullable: false, exclusive_minimum: 0 })).toBe('> 0');
    expect(boundsOf({ type: 'string', nullable: false, enum: ['a', 'b'] })).toBe('one of a, b');
    expect(boundsOf({ type: 'string', nullable: false })).toBe('');
  });
});
