// The context one request gets on a llama-server or built-in engine slot, from the same
// inputs its command line is built from (argv.ts): what /v1/models says as `context_length`
// and what an agent's wiring sizes its prompts by (pi's models.json contextWindow). Saying
// the slot's [model].context_size alone was wrong twice over: a `-c` in [server].extra_args
// replaces it on the command line, and the engines split the context among their parallel
// sequences ([slot].workers, or `-np`), so each request gets a share of it.
import type { SlotFile } from '../../config/schema/slot.js';
import { flagValue } from '../argv.js';
import { resolveContextSize, tokenizeFlags } from './argv.js';

const positive = (value: string | undefined): number | null => {
  const n = value === undefined ? NaN : Number(value);
  return Number.isInteger(n) && n > 0 ? n : null;
};

/**
 * `--ctx-size` as the engine is started with it (extra_args' own, else the slot's
 * context_size, else the native window as resolveContextSize derives it), divided among its
 * `--parallel` sequences; llama-server with `--kv-unified` lets every sequence use the whole
 * cache. Null when nothing says how long the model's context is (the engine reads it from
 * the file at start).
 */
export function requestContextSize(config: Pick<SlotFile, 'slot' | 'model' | 'server'>, native: number | null): number | null {
  let extra: string[] = [];
  try {
    extra = tokenizeFlags(config.server.extra_args, '[server].extra_args');
  } catch {
    // extra_args that cannot be split are refused at start; the configured size is the best guess meanwhile.
  }
  const given = positive(flagValue(extra, '--ctx-size'));
  if (given === null && config.model.context_size === null && native === null) return null;
  const total = given ?? resolveContextSize(config.model.context_size, native);
  const parallel = positive(flagValue(extra, '--parallel')) ?? config.slot.workers;
  const unified = flagValue(extra, '--kv-unified') !== undefined || flagValue(extra, '-kvu') !== undefined;
  return unified || parallel <= 1 ? total : Math.max(1, Math.floor(total / parallel));
}
