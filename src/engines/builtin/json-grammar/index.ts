// The built-in engine's structured output: JSON Schema (and tool calls) to GBNF, so that
// generation constrained by the grammar (node-llama-cpp's createGrammar) always parses and
// validates against the schema, whatever the model's weights. Compact JSON only: no optional
// whitespace, which a random model could otherwise loop on. Modelled on the behaviour of
// llama.cpp's common/json-schema-to-grammar.cpp, but refusing what it would silently drop.
import { Compiler, schemaDocument } from './compile.js';
import { alt, literal, repeat, seq, type Expr } from './grammar.js';
import { grammarProblem } from './grammar-checks.js';
import { SchemaProblem, isObject } from './schema-check.js';

export { SchemaProblem } from './schema-check.js';

/** The checks only a whole grammar can answer, for the part of it under `root`. */
function check(compiler: Compiler, root: Expr, rootPath: string): void {
  const problem = grammarProblem(compiler.rules, root);
  if (problem) throw new SchemaProblem(compiler.rules.paths.get(problem.rule) ?? rootPath, problem.message);
}

/** GBNF (root rule `root`) matching only compact JSON documents valid against `schema`. Throws SchemaProblem, paths prefixed with `path`. */
export function jsonSchemaGrammar(schema: unknown, path: string): string {
  const compiler = new Compiler();
  const root = compiler.compile(schema, path, 'root', schemaDocument(schema, path));
  check(compiler, root, path);
  return compiler.rules.text(root);
}

/** GBNF for any JSON object (response_format json_object). */
export function anyJsonObjectGrammar(): string {
  const compiler = new Compiler();
  return compiler.rules.text(compiler.values.object());
}

/** `parameters` that say nothing: any object. */
const isEmptySchema = (parameters: unknown) => parameters === undefined || parameters === null || (isObject(parameters) && Object.keys(parameters).length === 0);

/**
 * GBNF for tool calls, always a JSON array: `[{"name":"<fn>","arguments":<args>}]`, one call,
 * or when `parallel` one or more calls separated by `,` (at most `maxCalls`, if given: a model
 * that never closes the list would otherwise write calls until it runs out of tokens).
 * `name` is one of the functions given; `arguments` matches that function's `parameters`
 * schema (a missing/empty `parameters` = any object).
 * Problem paths are prefixed with each function's `path` (e.g. `tools[2].function.parameters`).
 */
export function toolCallsGrammar(functions: ReadonlyArray<{ name: string; parameters: unknown; path: string }>, options: { parallel: boolean; maxCalls?: number }): string {
  if (functions.length === 0) throw new SchemaProblem('tools', 'must name at least one function');
  const compiler = new Compiler();
  const calls = functions.map(({ name, parameters, path }) => {
    const args = isEmptySchema(parameters) ? compiler.values.object() : compiler.child(parameters, path, `${name}-arguments`, schemaDocument(parameters, path));
    check(compiler, args, path);
    return compiler.rules.define(`${name}-call`, seq(literal(`{"name":${JSON.stringify(name)},"arguments":`), args, literal('}')));
  });
  const call = calls.length === 1 ? calls[0]! : compiler.rules.define('call', alt(...calls));
  const more = options.parallel ? repeat(seq(literal(','), call), 0, Math.max(1, options.maxCalls ?? Infinity) - 1) : seq();
  return compiler.rules.text(seq(literal('['), call, more, literal(']')));
}
