// Reading and writing TOML documents. Parse errors become problems with line and column.
import { readFile } from 'node:fs/promises';
import { parse, stringify, TomlError } from 'smol-toml';
import type { ConfigProblem } from './problems.js';

export type TomlDoc = Record<string, unknown>;

export type ReadResult =
  | { readonly status: 'missing' }
  | { readonly status: 'ok'; readonly doc: TomlDoc; readonly text: string }
  | { readonly status: 'invalid'; readonly problem: ConfigProblem; readonly text: string };

export function parseToml(text: string, file: string): { doc: TomlDoc } | { problem: ConfigProblem } {
  try {
    return { doc: parse(text) as TomlDoc };
  } catch (error) {
    const where = error instanceof TomlError ? `line ${error.line}, column ${error.column}: ` : '';
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { problem: { file, path: '', message: `not valid TOML: ${where}${reason}`, severity: 'error' } };
  }
}

export async function readTomlFile(path: string, file: string): Promise<ReadResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing' };
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    return { status: 'invalid', text: '', problem: { file, path: '', message: `cannot read the file (${reason})`, severity: 'error' } };
  }
  const parsed = parseToml(text, file);
  return 'doc' in parsed ? { status: 'ok', doc: parsed.doc, text } : { status: 'invalid', problem: parsed.problem, text };
}

export function stringifyToml(doc: TomlDoc): string {
  const text = stringify(stripNulls(doc));
  return text.endsWith('\n') ? text : `${text}\n`;
}

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/**
 * TOML has no null: a null value means "not set", so the key is left out and its default
 * applies. A table left empty that way is dropped too, rather than written as a bare header.
 */
function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNulls);
  if (!isTable(value)) return value;
  const entries = Object.entries(value)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => [k, stripNulls(v)] as const)
    .filter(([, v]) => !(isTable(v) && Object.keys(v).length === 0));
  return Object.fromEntries(entries);
}

