// Launch contexts for the engine adapters' unit tests: a slot file parsed by the real
// schema, svc.toml parsed by the real schema, the profile the supervisor would choose, and
// a PATH of stand-in executables (the adapters only check that a program exists; they
// never run it).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { SlotEntry } from '../../src/config/load.js';
import { resolveProfile } from '../../src/config/profiles.js';
import { SlotFileSchema } from '../../src/config/schema/slot.js';
import { SvcTomlSchema } from '../../src/config/schema/svc-toml.js';
import type { LaunchContext, ResolvedModel } from '../../src/engines/types.js';
import type { HostDevices } from '../../src/engines/container.js';

export const HOST_DEVICES: HostDevices = { kfd: true, dri: ['/dev/dri/card0', '/dev/dri/renderD128'], gids: { render: 110, video: 44 } };

export interface FakeBin {
  dir: string;
  /** Absolute path of a stand-in program in `dir`. */
  path(name: string): string;
  remove(): void;
}

/** A temp folder of executable stand-ins (`#!/bin/sh`), for PATH lookups. */
export function fakeBin(names: readonly string[]): FakeBin {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bin-'));
  for (const name of names) {
    const file = join(dir, name);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '#!/bin/sh\n');
    chmodSync(file, 0o755);
  }
  return { dir, path: (name) => join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ContextInput {
  slot: Record<string, unknown>;
  model?: Record<string, unknown>;
  server?: Record<string, unknown>;
  npu?: Record<string, unknown>;
  /** [rpc] of a llama-rpc slot. */
  rpc?: Record<string, unknown>;
  svc?: Record<string, unknown>;
  /** The model the supervisor resolved (id engines: path '' unless a file was named). */
  resolved?: Partial<ResolvedModel>;
  env?: NodeJS.ProcessEnv;
  modelStore?: string;
}

export function launchContext(input: ContextInput): LaunchContext {
  const config = SlotFileSchema.parse({ slot: { port: 8091, ...input.slot }, model: input.model ?? {}, server: input.server ?? {}, npu: input.npu ?? {}, rpc: input.rpc ?? {} });
  const slot: SlotEntry = { name: config.slot.name, file: `slots/${config.slot.name}.toml`, config };
  const profile = resolveProfile(config.slot, null, {});
  if ('error' in profile) throw new Error(profile.error);
  return {
    slot,
    model: { id: config.model.default || 'model', path: '', mmproj: null, tags: [], contextLength: null, ...input.resolved },
    profile,
    svc: SvcTomlSchema.parse(input.svc ?? {}),
    stateDir: '/var/lib/svc/slots/' + config.slot.name,
    baseEnv: { PATH: '/nonexistent', HOME: '/home/svc', ...input.env },
    modelStore: input.modelStore ?? '/mnt/ai-models',
  };
}
