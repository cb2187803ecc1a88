import { describe, expect, it } from 'vitest';
import { RequestError } from './errors.js';
import { boundedEnvelope, clip, containsNul, listProblems, MAX_ECHO_CHARS, MAX_REPORTED_PROBLEMS } from './input-bounds.js';

const problems = (count: number) => Array.from({ length: count }, (_, i) => ({ path: `k${i}`, message: 'unknown key' }));

describe('error answers within bounds', () => {
  it('lists the first problems and counts the rest, in details and in the message', () => {
    const envelope = new RequestError('request.invalid', `invalid body: ${listProblems(problems(20_000), (p) => `${p.path}: ${p.message}`)}`, { problems: problems(20_000) }).toEnvelope();
    expect(envelope.error.details.problems).toEqual(problems(MAX_REPORTED_PROBLEMS));
    expect(envelope.error.details.problems_omitted).toBe(20_000 - MAX_REPORTED_PROBLEMS);
    expect(envelope.error.message.endsWith(`; and ${20_000 - MAX_REPORTED_PROBLEMS} more`)).toBe(true);
    expect(JSON.stringify(envelope).length).toBeLessThan(4_000);
  });

  it('clips what an error echoes: a field path, a message, a detail', () => {
    const long = 'k'.repeat(100_000);
    const envelope = boundedEnvelope({ error: { code: 'config.invalid', message: `settings not saved: ${long}`, details: { problems: [{ path: long, message: long }], file: long } } });
    const [problem] = envelope.error.details.problems as Array<{ path: string; message: string }>;
    expect(problem!.path).toBe(clip(long));
    expect(clip(clip(long))).toBe(clip(long)); // clipped twice (by a producer, then the envelope) reads as once
    expect(problem!.path.startsWith('k'.repeat(MAX_ECHO_CHARS))).toBe(true);
    expect(problem!.path).toContain(`… (${100_000 - MAX_ECHO_CHARS} more characters)`);
    expect(JSON.stringify(envelope).length).toBeLessThan(12_000);
  });

  it('keeps an envelope already within bounds as it was, and adds to a count a producer gave', () => {
    const small = { error: { code: 'slot.not_found', message: 'no slot named x', details: { slot: 'x', known: ['a', 'b'] } } };
    expect(boundedEnvelope(small)).toEqual(small);
    const counted = boundedEnvelope({ error: { code: 'request.invalid', message: 'm', details: { problems: problems(25), problems_omitted: 5 } } });
    expect(counted.error.details.problems_omitted).toBe(10);
  });
});

describe('containsNul', () => {
  it('finds a NUL in a key or a string at any depth of a JSON value', () => {
    expect(containsNul({ a: [{ b: 'x\u0000' }] })).toBe(true);
    expect(containsNul({ a: { 'k\u0000': 1 } })).toBe(true);
    expect(containsNul({ a: ['fine', 1, null, { b: true }] })).toBe(false);
  });
});
