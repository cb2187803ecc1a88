import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api-error.js';
import { isFieldError, registerProblems } from './register-problems.js';

describe('registration problems', () => {
  it('puts a coded refusal beside its field', () => {
    const missing = new ApiError('model.path_missing', 'no file at /x.gguf', { path: '/x.gguf' }, 400);
    expect(registerProblems(missing)).toEqual({ path: 'model.path_missing: no file at /x.gguf' });
    expect(isFieldError(missing)).toBe(true);
    expect(registerProblems(new ApiError('model.already_exists', 'taken', {}, 409))).toEqual({ id: 'model.already_exists: taken' });
  });

  it('keeps the problems the server names by path', () => {
    const invalid = new ApiError('request.invalid', 'invalid body', { problems: [{ path: 'license', message: 'too short' }] }, 400);
    expect(registerProblems(invalid)).toEqual({ license: 'too short' });
  });

  it('leaves other errors to the form', () => {
    const other = new ApiError('network.unreachable', 'down');
    expect(registerProblems(other)).toEqual({});
    expect(isFieldError(other)).toBe(false);
    expect(isFieldError(new Error('x'))).toBe(false);
  });
});
