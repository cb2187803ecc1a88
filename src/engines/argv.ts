// Engine command lines: shell-like tokenising of free-form flags ([server].extra_args,
// profile flags) and merging of flag layers where the last occurrence of a flag wins.
// Rules follow the original's normalize_argv:
//   - a token is a flag if it starts with "--", or "-" and a letter ("-1" is a value);
//   - a flag takes the next token as its value only when that token is not a flag;
//   - short and long spellings of one flag are the same flag (-c / --ctx-size);
//   - the last occurrence wins, in its own position and spelling;
//   - repeatable flags (--lora, --override-kv, ...) are never deduplicated.

export { ArgvSyntaxError, tokenize } from '../lib/shell-words.js';
import { own } from '../lib/own.js';

/** Short spellings folded onto the long flag they mean, for llama.cpp servers. */
const LONG_FORM: Readonly<Record<string, string>> = {
  '-m': '--model', '-a': '--alias', '-c': '--ctx-size', '-t': '--threads', '-tb': '--threads-batch',
  '-b': '--batch-size', '-ub': '--ubatch-size', '-ngl': '--n-gpu-layers', '--gpu-layers': '--n-gpu-layers',
  '-ngld': '--n-gpu-layers-draft', '-ctk': '--cache-type-k', '-ctv': '--cache-type-v', '-fa': '--flash-attn',
  '-dev': '--device', '-sm': '--split-mode', '-ts': '--tensor-split', '-mg': '--main-gpu', '-np': '--parallel',
  '-md': '--model-draft', '-lm': '--load-mode', '-to': '--timeout', '-n': '--n-predict', '-s': '--seed',
};

const REPEATABLE = new Set(['--lora', '--lora-scaled', '--override-kv', '--control-vector', '--draft-model', '--api-key']);

export const isFlag = (token: string) => token.startsWith('--') || /^-[A-Za-z]/.test(token);

/** The dedupe key of a flag token: its long form, without any "=value". */
export function flagKey(token: string): string {
  const name = token.includes('=') ? token.slice(0, token.indexOf('=')) : token;
  return own(LONG_FORM, name) ?? name;
}

interface Arg {
  key?: string;
  tokens: string[];
}

function group(tokens: readonly string[]): Arg[] {
  const args: Arg[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (!isFlag(token)) {
      args.push({ tokens: [token] });
      continue;
    }
    const next = tokens[i + 1];
    const takesValue = !token.includes('=') && next !== undefined && !isFlag(next);
    args.push({ key: flagKey(token), tokens: takesValue ? [token, tokens[++i]!] : [token] });
  }
  return args;
}

/** Deduplicate flags: the last occurrence of each wins and keeps its own position. */
export function normalizeArgv(tokens: readonly string[]): string[] {
  const args = group(tokens);
  const last = new Map<string, number>();
  args.forEach((arg, index) => arg.key && last.set(arg.key, index));
  return args.filter((arg, index) => !arg.key || REPEATABLE.has(arg.key) || last.get(arg.key) === index).flatMap((a) => a.tokens);
}

/** The value a flag ends up with after normalising, or undefined. */
export function flagValue(tokens: readonly string[], flag: string): string | undefined {
  const key = flagKey(flag);
  let value: string | undefined;
  for (const arg of group(tokens)) {
    if (arg.key !== key) continue;
    const first = arg.tokens[0]!;
    value = arg.tokens[1] ?? (first.includes('=') ? first.slice(first.indexOf('=') + 1) : '');
  }
  return value;
}
