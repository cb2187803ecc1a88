// How an engine reads its command line, for the host-only policy (docs/auth.md, "Host-only
// keys"): which spellings name one flag, which flags take a value, and which flags are safe
// to accept from a LAN client. Everything not on an engine's LAN list is host-only, so a flag
// a new engine version adds is kept to the host until someone looks at it.
//
// Arguments are read the engine's own way, not svc's generic one (argv.ts), because a
// mismatch is a bypass: llama.cpp turns `_` into `-` in long flags and always takes the next
// token as a flag's value; Python's argparse expands unique prefixes (`--list` is `--listen`)
// and reads `--flag=value`.

export interface FlagGroup {
  /** Every spelling; the first long one names the flag in messages and comparisons. */
  readonly spellings: readonly string[];
  /** The flag takes the next token (or `=value`) as its value. */
  readonly value: boolean;
  /** A LAN client may set it (tuning: numbers, modes; nothing that names a file, a host or code). */
  readonly lan: boolean;
}

export interface FlagDialect {
  /** The engine's name in messages. */
  readonly engine: string;
  /** llama.cpp: `--foo_bar` is `--foo-bar`. */
  readonly underscores: boolean;
  /** argparse: a unique prefix of a long flag is that flag, and `--flag=value` is one token. */
  readonly argparse: boolean;
  readonly groups: readonly FlagGroup[];
}

/** One argument as the engine reads it. */
export interface EngineArg {
  /** The flag as written (without `=value`), or the stray word itself. */
  readonly spelled: string;
  /** The flag's name for comparisons (its group's, else the normalised spelling); '' for a stray word. */
  readonly flag: string;
  readonly value: string | null;
  /** Settable from the LAN: a known LAN flag, spelled in full. */
  readonly lan: boolean;
}

const index = new WeakMap<FlagDialect, Map<string, FlagGroup>>();

function bySpelling(dialect: FlagDialect): Map<string, FlagGroup> {
  let map = index.get(dialect);
  if (!map) {
    map = new Map(dialect.groups.flatMap((group) => group.spellings.map((spelling) => [spelling, group] as const)));
    index.set(dialect, map);
  }
  return map;
}

const nameOf = (group: FlagGroup) => group.spellings.find((s) => s.startsWith('--')) ?? group.spellings[0]!;
const looksLikeFlag = (token: string) => /^-[^\d.]/.test(token);

/** The group argparse would expand an abbreviation to, when exactly one long spelling starts with it. */
function expand(dialect: FlagDialect, name: string): FlagGroup | undefined {
  const matches = new Set(dialect.groups.filter((group) => group.spellings.some((s) => s.startsWith('--') && s.startsWith(name))));
  return matches.size === 1 ? [...matches][0] : undefined;
}

/** Read tokens the way the engine does. */
export function readEngineArgs(dialect: FlagDialect, tokens: readonly string[]): EngineArg[] {
  const args: EngineArg[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (!looksLikeFlag(token)) {
      args.push({ spelled: token, flag: '', value: token, lan: false });
      continue;
    }
    const eq = token.indexOf('=');
    const spelled = eq > 0 ? token.slice(0, eq) : token;
    const inline = eq > 0 ? token.slice(eq + 1) : null;
    const name = dialect.underscores && spelled.startsWith('--') ? spelled.replace(/_/g, '-') : spelled;
    const exact = bySpelling(dialect).get(name);
    const group = exact ?? (dialect.argparse && name.startsWith('--') ? expand(dialect, name) : undefined);
    if (group) {
      // A `--flag=value` the engine does not split (or a boolean given a value) is refused by the engine: never LAN-safe.
      const readable = inline === null || (dialect.argparse && group.value);
      const value = inline ?? (group.value && i + 1 < tokens.length ? tokens[++i]! : null);
      args.push({ spelled, flag: nameOf(group), value, lan: group.lan && exact !== undefined && readable });
      continue;
    }
    const value = inline ?? (i + 1 < tokens.length && !looksLikeFlag(tokens[i + 1]!) ? tokens[++i]! : null);
    args.push({ spelled, flag: name, value, lan: false });
  }
  return args;
}

/** How an argument reads in a message: `--log-file /tmp/x`. */
export function showArg(arg: EngineArg): string {
  return arg.flag === '' ? arg.spelled : arg.value === null ? arg.spelled : `${arg.spelled} ${arg.value}`;
}

const keyOf = (arg: EngineArg) => `${arg.flag}\u0000${arg.value ?? ''}`;

/**
 * The host-only arguments of `after` that `approved` does not already have, flag and value
 * compared: keeping a host-only flag the host set is fine, giving it another value is not.
 */
export function addedHostOnly(approved: readonly EngineArg[], after: readonly EngineArg[]): EngineArg[] {
  const kept = new Set(approved.filter((arg) => !arg.lan).map(keyOf));
  return after.filter((arg) => !arg.lan && !kept.has(keyOf(arg)));
}

/** A group from a compact spec: "-c --ctx-size N" (a trailing upper-case word: it takes a value). */
export function groups(lan: boolean, specs: readonly string[]): FlagGroup[] {
  return specs.map((spec) => {
    const words = spec.split(' ');
    const value = words.length > 1 && !words.at(-1)!.startsWith('-');
    return { spellings: value ? words.slice(0, -1) : words, value, lan };
  });
}
