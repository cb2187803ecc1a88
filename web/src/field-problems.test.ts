import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from './api-error.js';
import { CreateSlotRequestSchema } from '../../src/protocol/slot-requests.js';
import { parseRequest } from '../../src/protocol/validate.js';
import { problemAt, problemsOfError, problemsOfIssues } from './field-problems.js';

describe('field problems', () => {
  it('keys the server\'s details.problems by path, the first message of each', () => {
    const error = new ApiError('request.invalid', 'invalid slot', {
      problems: [
        { path: 'slot.port', message: 'expected a number' },
        { path: 'slot.port', message: 'second' },
        { path: 'model.default', message: 'unknown model "x"' },
        { nonsense: true },
      ],
    });
    expect(problemsOfError(error)).toEqual({ 'slot.port': 'expected a number', 'model.default': 'unknown model "x"' });
    expect(problemsOfError(new Error('plain'))).toEqual({});
    expect(problemsOfError(new ApiError('slot.not_found', 'no slot', {}))).toEqual({});
  });

  it('keys a zod parse the way the server does, indexes in brackets', () => {
    const schema = z.object({ name: z.string().min(1), args: z.array(z.string()), server: z.object({ port: z.number().int() }) });
    const parsed = schema.safeParse({ name: '', args: ['ok', 3], server: { port: 1.5 } });
    expect(parsed.success).toBe(false);
    const problems = problemsOfIssues(parsed.error!.issues);
    expect(Object.keys(problems).sort()).toEqual(['args[1]', 'name', 'server.port']);
  });

  it('says a bound in the server\'s words, never zod\'s "Too big: expected number to be <=65535"', () => {
    const bounded = z.object({ n: z.int().max(9), s: z.string().min(3) }).safeParse({ n: 10, s: 'a' });
    expect(problemsOfIssues(bounded.error!.issues)).toEqual({ n: 'expected <= 9', s: 'expected at least 3 characters' });
    // The slot form's port: the sentence says what a slot's port is, in the browser and from the server alike.
    const port = CreateSlotRequestSchema.safeParse({ name: 'x', model: 'tiny', port: 70000 });
    expect(problemsOfIssues(port.error!.issues)).toEqual({ port: "expected a port number, and a slot's port is 8081-8200" });
    expect(() => parseRequest(CreateSlotRequestSchema, { name: 'x', model: 'tiny', port: 70000 })).toThrow("invalid body: port: expected a port number, and a slot's port is 8081-8200; got 70000");
  });

  it('finds a problem under a field that edits a whole object', () => {
    const problems = { 'server.env.LD_PRELOAD': 'host-only', name: 'taken' };
    expect(problemAt(problems, 'name')).toBe('taken');
    expect(problemAt(problems, 'server.env')).toBe('LD_PRELOAD: host-only');
    expect(problemAt(problems, 'model')).toBeUndefined();
  });
});
