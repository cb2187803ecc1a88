// A SlotSupervisor over fault-engine slots (test/fixtures/fault-engine.mjs), for the unit
// tests of the slots layer: real engine processes, no gateway. setup() writes a temp home
// whose slot files carry the fault engine's knobs in [server].extra_args.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig, type ResolvedConfig } from '../../src/config/load.js';
import { resolvePaths } from '../../src/config/paths.js';
import { tokenize } from '../../src/lib/shell-words.js';
import type { EngineAdapter, HealthState } from '../../src/engines/types.js';
import type { Transition } from '../../src/slots/slot-runtime.js';
import { SlotSupervisor, type SupervisorOptions } from '../../src/slots/supervisor.js';
import { freeSlotPort } from './ports.js';

const FAULT_ENGINE = resolve(__dirname, '../fixtures/fault-engine.mjs');

/** Launches the fault engine with the slot's extra_args as its knobs. */
export const faultAdapter: EngineAdapter = {
  provider: 'llama-server',
  serves: ['llm'],
  async launch({ slot }) {
    const port = slot.config.slot.port;
    const args = [FAULT_ENGINE, '--port', String(port), ...tokenize(slot.config.server.extra_args ?? '')];
    return { command: process.execPath, args, env: { PATH: process.env.PATH ?? '' }, baseUrl: `http://127.0.0.1:${port}`, mode: 'process' };
  },
  async health(baseUrl, signal): Promise<HealthState> {
    try {
      const response = await fetch(`${baseUrl}/health`, { signal });
      await response.arrayBuffer();
      return response.status === 200 ? 'ready' : 'loading';
    } catch {
      return 'down';
    }
  },
};

/** Every supervisor setup() made; shut them down after each test (see stopSupervisors). */
export const supervisors: SlotSupervisor[] = [];

export async function setup(slots: Record<string, string>, svcToml = '', options: Partial<SupervisorOptions> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'svc-sup-'));
  const paths = resolvePaths({ env: { SVC_HOME: root }, isRoot: false, homeDir: root, exists: () => false });
  mkdirSync(paths.slotsDir, { recursive: true });
  writeFileSync(join(root, 'model.gguf'), 'not really a model; the fault engine ignores it');
  writeFileSync(paths.svcToml, svcToml);
  for (const [name, body] of Object.entries(slots)) {
    // A body may set its own device (a line `device = ...` before any other section).
    const device = /^device\s*=/m.test(body) ? '' : 'device = "cpu"\n';
    writeFileSync(join(paths.slotsDir, `${name}.toml`), `[slot]\nname = "${name}"\nport = ${await freeSlotPort()}\n${device}${body}\n[model]\npath = "${join(root, 'model.gguf')}"\n`);
  }
  const outcome = await loadConfig(paths, {});
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.problems));
  let config: ResolvedConfig = outcome.config;
  const transitions: Transition[] = [];
  const make = () => {
    const supervisor = new SlotSupervisor({
      config: () => config,
      engineFor: () => faultAdapter,
      onTransition: (t) => transitions.push(t),
      policy: { backoffBaseMs: 100, backoffMaxMs: 400, crashLoopCount: 3, crashLoopWindowMs: 60_000 },
      stopGraceMs: 500,
      healthIntervalMs: 50,
      tickMs: 100,
      ...options,
    });
    supervisors.push(supervisor);
    return supervisor;
  };
  const supervisor = make();
  await supervisor.init();
  return {
    supervisor, transitions, paths, make,
    config: () => config,
    setConfig: (c: ResolvedConfig) => (config = c),
    /** Re-read the files (after a test edited one), as a reload does. */
    async reload() {
      const next = await loadConfig(paths, {});
      if (!next.ok) throw new Error(JSON.stringify(next.problems));
      config = next.config;
    },
  };
}

export async function stopSupervisors(): Promise<void> {
  await Promise.all(supervisors.splice(0).map((s) => s.shutdown()));
}
