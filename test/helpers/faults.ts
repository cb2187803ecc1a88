// Homes whose slots run the fault engine (test/fixtures/fault-engine.mjs) in place of
// llama-server: a wrapper script given to the gateway as SVC_LLAMA_SERVER, so the real
// llama-server adapter launches it with real llama-server flags, plus the knobs each slot
// passes in [server].extra_args. For the faults no real engine can be made to show.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, tempHome, type TempHome } from './gateway.js';
import { freeSlotPort } from './ports.js';

export const FAULT_ENGINE = join(REPO_ROOT, 'test/fixtures/fault-engine.mjs');

export interface FaultSlot {
  name: string;
  /** Knobs for the fault engine, e.g. "--never-healthy". */
  knobs?: string;
  /** Extra [slot] lines, e.g. "load_timeout_s = 2". */
  extra?: string;
  /** [slot].device (default cpu). */
  device?: string;
}

export interface FaultHome extends TempHome {
  /** The env that makes the gateway launch the fault engine for llama-server slots. */
  env: Record<string, string>;
}

export async function homeWithFaultSlots(slots: readonly FaultSlot[], files: Record<string, string> = {}): Promise<FaultHome> {
  const home = tempHome(files);
  const wrapper = join(home.home, 'fault-llama-server');
  writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAULT_ENGINE)} "$@"\n`);
  chmodSync(wrapper, 0o755);
  const model = join(home.home, 'fault.gguf');
  writeFileSync(model, 'not a model: the fault engine never reads it');
  for (const slot of slots) {
    const server = slot.knobs ? `[server]\nextra_args = ${JSON.stringify(slot.knobs)}\n` : '';
    home.write(`slots/${slot.name}.toml`, `[slot]\nname = "${slot.name}"\nport = ${await freeSlotPort()}\ndevice = "${slot.device ?? 'cpu'}"\n${slot.extra ?? ''}\n[model]\npath = ${JSON.stringify(model)}\ncontext_size = 512\n${server}`);
  }
  return { ...home, env: { SVC_LLAMA_SERVER: wrapper } };
}
