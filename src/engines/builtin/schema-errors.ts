// The grammar compiler's SchemaProblem as the client sees it: a 400 request.invalid whose
// message and details name the path inside the request (response_format.json_schema.schema
// .properties.age.multipleOf, tools[1].function.parameters...).
import { invalidAt } from './field-errors.js';
import { SchemaProblem } from './json-grammar/index.js';

/** Run a grammar build; a schema it cannot honour becomes a 400 naming the path. */
export function grammarOrInvalid<T>(build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof SchemaProblem) throw invalidAt(error.path, withoutPath(error.message, error.path));
    throw error;
  }
}

/** The problem in words, without the path in front when the compiler already put it there. */
function withoutPath(message: string, path: string): string {
  for (const prefix of [`'${path}' `, `${path}: `, `${path} `]) if (message.startsWith(prefix)) return message.slice(prefix.length);
  return message;
}
