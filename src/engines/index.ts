// The engine adapters by provider label ([slot].provider): llama-server and the built-in
// engine so far; the fixture-backed engines join here as they arrive.
import { builtinAdapter } from './builtin/adapter.js';
import { llamaServerAdapter } from './llama-server/adapter.js';
import type { EngineAdapter } from './types.js';

const ADAPTERS: ReadonlyMap<string, EngineAdapter> = new Map([
  [llamaServerAdapter.provider, llamaServerAdapter],
  [builtinAdapter.provider, builtinAdapter],
]);

/** The adapter for a provider, or undefined when no engine of that name exists. */
export function engineFor(provider: string): EngineAdapter | undefined {
  return ADAPTERS.get(provider);
}

export type { EngineAdapter, HealthState, LaunchContext, LaunchSpec, ResolvedModel } from './types.js';
