// The one line pg-process.ts prints on stdout once it listens, and how the supervisor that
// started it knows it: here, apart from pg-process.ts, which loads PGlite when imported.
export const READY_PREFIX = '{"ready":true';

export function readyLine(port: number, pid: number): string {
  return `${JSON.stringify({ ready: true, port, pid })}\n`;
}
