// The engine adapters by provider label ([slot].provider). Only llama-server exists so far;
// the built-in engine and the fixture-backed engines join here as they arrive.
import { llamaServerAdapter } from './llama-server/adapter.js';
import type { EngineAdapter } from './types.js';

const ADAPTERS: ReadonlyMap<string, EngineAdapter> = new Map([[llamaServerAdapter.provider, llamaServerAdapter]]);

/** The adapter for a provider, or undefined when no engine of that name exists. */
export function engineFor(provider: string): EngineAdapter | undefined {
  return ADAPTERS.get(provider);
}

export type { EngineAdapter, HealthState, LaunchContext, LaunchSpec, ResolvedModel } from './types.js';
