// Shell-like splitting of free-form flag strings ([server].extra_args, profile flags).
// config's schemas split them at load, so a bad string is a load-time problem, never a
// launch-time one; engines split them again to build the argv.

export class ArgvSyntaxError extends Error {}

/** Split a string the way a POSIX shell would, without expansion. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let current = '';
  let inToken = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else current += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === '\\' && i + 1 < text.length && '"\\$`'.includes(text[i + 1]!)) current += text[++i];
      else current += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inToken = true;
    } else if (ch === '\\') {
      if (i + 1 >= text.length) throw new ArgvSyntaxError('a trailing backslash escapes nothing');
      current += text[++i];
      inToken = true;
    } else if (/\s/.test(ch)) {
      if (inToken) tokens.push(current);
      current = '';
      inToken = false;
    } else {
      current += ch;
      inToken = true;
    }
  }
  if (quote) throw new ArgvSyntaxError(`unbalanced ${quote === '"' ? 'double' : 'single'} quote`);
  if (inToken) tokens.push(current);
  return tokens;
}

/** A word that needs no quotes in a shell line or a systemd unit. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quote one word so that a POSIX shell (and tokenize) reads it back unchanged. */
export function quoteWord(word: string): string {
  return PLAIN_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Quote one word of a systemd unit line (ExecStart=, Environment=, ReadWritePaths=): double
 * quotes with `"` and `\` escaped, since systemd has no shell's `'\''` for a quote inside one.
 */
export function quoteUnitWord(word: string): string {
  return PLAIN_WORD.test(word) ? word : `"${word.replace(/(["\\])/g, '\\$1')}"`;
}

/** The words of `text`, or none when it cannot be split (callers that report the syntax error elsewhere). */
export function wordsOrNone(text: string | null | undefined): string[] {
  try {
    return text ? tokenize(text) : [];
  } catch {
    return [];
  }
}
