// `type: string` with minLength/maxLength, pattern or format. Lengths count characters of
// the value (each spelling in json-chars.ts is one), a format is a pattern of its own
// (formats.ts); with a pattern and lengths that narrow it, the pattern is compiled with a
// character count in its states (pattern-grammar.ts).
import { FORMAT_PATTERNS } from './formats.js';
import { literal, repeat, seq, type Expr } from './grammar.js';
import { ANY_JSON_CHAR } from './json-chars.js';
import { directGrammar, lengthLimitedGrammar, type EncodeChars } from './pattern-grammar.js';
import { PatternError, lengthRange, parsePattern, type Regex } from './pattern.js';
import type { Rules } from './rules.js';
import { SchemaProblem, childPath, type SchemaObject } from './schema-check.js';

const QUOTE = literal('"');

export interface StringContext {
  rules: Rules;
  encode: EncodeChars;
}

/** The pattern a string must match (its own or its format's) and the keyword it came from. */
function patternOf(schema: SchemaObject, path: string): { regex: Regex; keyword: string } | null {
  if (typeof schema.pattern === 'string' && typeof schema.format === 'string') {
    throw new SchemaProblem(childPath(path, 'format'), 'together with pattern is not supported: use one of them');
  }
  const keyword = typeof schema.pattern === 'string' ? 'pattern' : typeof schema.format === 'string' ? 'format' : null;
  if (!keyword) return null;
  try {
    return { regex: parsePattern(keyword === 'pattern' ? (schema.pattern as string) : FORMAT_PATTERNS[schema.format as string]!), keyword };
  } catch (error) {
    if (error instanceof PatternError) throw new SchemaProblem(childPath(path, keyword), `is outside the regular-expression subset the grammar supports: ${error.message}`);
    throw error;
  }
}

export function stringGrammar(schema: SchemaObject, path: string, hint: string, context: StringContext): Expr {
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = (schema.maxLength as number | undefined) ?? Infinity;
  const pattern = patternOf(schema, path);
  if (!pattern) return seq(QUOTE, repeat(context.rules.define('char', ANY_JSON_CHAR), minLength, maxLength), QUOTE);
  const where = childPath(path, pattern.keyword);
  const [shortest, longest] = lengthRange(pattern.regex);
  try {
    // Lengths the pattern keeps to anyway need no counting.
    if (shortest >= minLength && longest <= maxLength) return seq(QUOTE, directGrammar(pattern.regex, context.encode), QUOTE);
    if (Math.max(shortest, minLength) > Math.min(longest, maxLength)) throw new PatternError(`allows ${shortest} to ${longest} characters, outside minLength ${minLength} and maxLength ${maxLength}`);
    return seq(QUOTE, lengthLimitedGrammar(pattern.regex, minLength, maxLength, context.encode, context.rules, `${hint}-${pattern.keyword}`), QUOTE);
  } catch (error) {
    if (error instanceof PatternError) throw new SchemaProblem(where, error.message);
    throw error;
  }
}
