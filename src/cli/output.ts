// Printing and exit codes for the CLI. Every failure ends in exactly one line on stderr
// (plus indented problem lines where there are several) and a documented exit code.
import { ApiResponseError, ApiUnreachableError } from './client.js';
import { padEnd, textWidth } from './fit-table.js';

export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  unreachable: 3,
  configInvalid: 4,
  notWritable: 5,
  listenFailed: 6,
} as const;

export class CliExit extends Error {
  constructor(readonly exitCode: number, message: string) {
    super(message);
  }
}

export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** A warning: the command goes on (stderr, so piped output stays clean). */
export function warn(line: string): void {
  process.stderr.write(`svc: warning: ${line}\n`);
}

/** What the command is waiting for (stderr, so piped output stays clean). */
export function progress(line: string): void {
  process.stderr.write(`svc: ${line}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Turn an error from a command into its message and exit code. */
export function exitFor(error: unknown): CliExit {
  if (error instanceof CliExit) return error;
  if (error instanceof ApiUnreachableError) {
    return new CliExit(EXIT.unreachable, `${error.message}; start it with \`svc serve\` (\`npm start\` in a checkout) or set SVC_API_URL to a running server`);
  }
  if (error instanceof ApiResponseError) {
    const problems = (error.envelope.error.details.problems as Array<{ file?: string; path?: string; message: string }> | undefined) ?? [];
    const lines = problems.map((p) => `  ${[p.file, p.path].filter(Boolean).join(': ')}: ${p.message}`);
    const code = error.code.startsWith('config.') ? EXIT.configInvalid : EXIT.failed;
    const hint = error.code === 'auth.required' || error.code === 'auth.invalid' ? ' (the CLI sends --token or $SVC_API_TOKEN; docs/auth.md)' : '';
    const head = problems.length > 0 ? `${error.code}: ${error.message.split(':')[0]}` : `${error.code}: ${error.message}${hint}`;
    return new CliExit(code, [head, ...lines].join('\n'));
  }
  return new CliExit(EXIT.failed, (error as Error)?.message ?? String(error));
}

export function formatDuration(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return [d && `${d}d`, h && `${h}h`, m && `${m}m`, `${s}s`].filter(Boolean).join('');
}

/** A plain left-aligned table; the last column is not padded. Widths as a terminal shows them (an emoji is two columns). */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(textWidth(h), ...rows.map((r) => textWidth(r[i] ?? ''))));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : padEnd(c, widths[i] ?? 0))).join('  ');
  return [line(header), ...rows.map(line)];
}
