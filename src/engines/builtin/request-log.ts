// One log line per request on the engine's stdout (the slot's engine.log): what was asked,
// how many tokens came out, how fast, and how it ended. `svc slot logs` shows it, and it is
// the engine-side proof that a client which left stopped its generation.
import type { Generated } from './generate.js';

export interface RunTimes {
  arrived: number;
  /** When a worker (context sequence) was free and generation began. */
  started: number | null;
  firstToken: number | null;
  ended: number;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/** The line for one finished (or abandoned) request. Pure, so its wording is tested. */
export function describeRun(kind: string, results: readonly Pick<Generated, 'promptTokens' | 'completionTokens' | 'finishReason'>[], aborted: boolean, times: RunTimes): string {
  const generated = results.reduce((sum, r) => sum + r.completionTokens, 0);
  const started = times.started ?? times.ended;
  const waited = started - times.arrived >= 1 ? `, after waiting ${ms(started - times.arrived)} for a free sequence` : '';
  const elapsed = times.ended - started;
  if (aborted) return `${kind}: cancelled by the client after ${generated} generated tokens (${ms(elapsed)}${waited})`;
  const prompt = results[0]?.promptTokens ?? 0;
  const rate = elapsed > 0 ? (generated * 1000) / elapsed : 0;
  const first = times.firstToken === null ? '' : `, first token after ${ms(times.firstToken - started)}`;
  const choices = results.length > 1 ? `${results.length} choices, ` : '';
  const finish = [...new Set(results.map((r) => r.finishReason))].join('/');
  return `${kind}: ${choices}${prompt} prompt tokens, ${generated} generated in ${ms(elapsed)} (${rate.toFixed(1)} tokens/s)${first}${waited}, finish ${finish}`;
}

export interface RunLog {
  /** A worker was free: generation begins (time spent queued ends here). */
  started(): void;
  /** A piece of the answer came out (the first one marks time to first token). */
  token(): void;
  end(results: readonly Generated[], aborted: boolean): void;
}

export class RequestLog {
  constructor(private readonly write: (line: string) => void, private readonly now: () => number = () => performance.now()) {}

  /** A line for something other than a generation (embeddings, rerank, a client gone while queued). */
  line(text: string): void {
    this.write(text);
  }

  start(kind: string): RunLog {
    const arrived = this.now();
    let started: number | null = null;
    let firstToken: number | null = null;
    return {
      started: () => {
        started ??= this.now();
      },
      token: () => {
        firstToken ??= this.now();
      },
      end: (results, aborted) => this.write(describeRun(kind, results, aborted, { arrived, started, firstToken, ended: this.now() })),
    };
  }
}
