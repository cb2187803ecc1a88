// The context window one request to a slot's engine can count on, as the engine runs it:
// an engines question, asked by the dispatcher for /v1/models (dispatch/candidates.ts).
import type { SlotFile } from '../config/schema/slot.js';
import { requestContextSize } from './llama-server/request-context.js';

/**
 * llama-server and the built-in engine: what their command line gives each sequence
 * (llama-server/request-context.ts: the -c it runs with, the slot's context_size or the
 * registry's metadata.context_length as resolveContextSize derives it, split among its
 * parallel workers). Other engines: the slot's context_size, else the native window. Null
 * when unknown until the engine reads the file.
 */
export function requestWindow(slot: SlotFile, native: number | null): number | null {
  // The built-in engine runs llama-server's command line (engines/builtin/adapter.ts).
  if (slot.slot.provider === 'llama-server' || slot.slot.provider === 'builtin') return requestContextSize(slot, native);
  return slot.model.context_size ?? native;
}
