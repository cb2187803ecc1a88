// Where the server's refusal of a registration belongs: `details.problems` name their field
// (request.invalid); the model.* codes are about one field each, and say so only by code.
import { ApiError } from '../../api-error.js';
import { problemsOfError, type Problems } from '../../field-problems.js';

const FIELD_OF_CODE: Record<string, string> = {
  'model.invalid_id': 'id',
  'model.already_exists': 'id',
  'model.path_relative': 'path',
  'model.path_missing': 'path',
  'model.unsupported_format': 'path',
  'config.host_only': 'path',
};

/** The server's problems keyed by field; a coded refusal as `code: message` beside its field. */
export function registerProblems(error: unknown): Problems {
  const problems = problemsOfError(error);
  if (error instanceof ApiError) {
    const field = FIELD_OF_CODE[error.code];
    if (field && !problems[field]) problems[field] = `${error.code}: ${error.message}`;
  }
  return problems;
}

/** Whether the error is shown beside a field already (so the form need not repeat it below). */
export const isFieldError = (error: unknown): boolean => Object.keys(registerProblems(error)).some((key) => key !== '');
