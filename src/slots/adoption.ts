// Engines a previous gateway left running (DESIGN.md, "Slot lifecycle": stopped ─adopt─▶
// ready). A gateway that crashed or handed over leaves its engines up, each recorded in its
// slot's state.json. The next one takes an engine back when the same process still runs the
// same command and answers healthy; otherwise it kills what is left of it and starts the slot
// again, since it was serving. Until that look is done, starts and stops wait at the
// InitGate: a start could put a second engine on an adopted one's port.
import type { ResolvedConfig } from '../config/load.js';
import { readSlotStateAsync } from '../config/slot-state-file.js';
import { HEALTH_TIMEOUT_MS } from '../engines/llama-server/health.js';
import type { EngineAdapter } from '../engines/types.js';
import { commandLine, isRunning, sameCommand, signalGroup } from '../lib/process.js';
import type { SlotRegistry } from './slot-registry.js';

/**
 * Holds starts and stops until the gateway has looked for engines to adopt. serve() holds it
 * from before it listens, since the supervisor's init() runs after (docs/performance.md, Start-up).
 */
export class InitGate {
  private gate: Promise<void> | null = null;
  private open: (() => void) | null = null;

  /** What a start or a stop awaits first; null when nothing is held, so the hot path awaits nothing. */
  get held(): Promise<void> | null {
    return this.gate;
  }

  hold(): void {
    this.gate ??= new Promise<void>((resolve) => (this.open = resolve));
  }

  /** Let the waiting starts and stops go (the look is done, or will not happen). */
  release(): void {
    const open = this.open;
    this.gate = null;
    this.open = null;
    open?.();
  }
}

/** A record in these states names an engine that may still be running. */
const ADOPTABLE_STATES: readonly string[] = ['ready', 'warming', 'starting'];

/** What adoption does to a slot's runtime (SlotRuntime). */
export interface AdoptingRuntime {
  readonly name: string;
  adopt(pid: number, baseUrl: string, modelId: string | null, command: string[] | null, adapter: EngineAdapter): void;
}

/**
 * At the gateway's start: a runtime for every configured slot, and each engine a previous
 * gateway left taken back (adoptLeftEngine); `startAgain` starts a slot whose engine was not.
 */
export async function adoptLeftEngines(slots: SlotRegistry, config: ResolvedConfig, startAgain: (slot: string) => void): Promise<void> {
  for (const entry of config.slots) slots.runtimeFor(entry);
  await Promise.all([...slots.runtimes.values()].map((runtime) => {
    return adoptLeftEngine(runtime, config.paths.stateRoot, slots.engineOf(slots.entry(runtime.name)), () => startAgain(runtime.name));
  }));
}

/**
 * Take back the engine the slot's state.json records, when it is still that engine and
 * healthy; else kill what is left of it and call `startAgain`. A record of a stopped slot
 * leaves the slot alone.
 */
export async function adoptLeftEngine(runtime: AdoptingRuntime, stateRoot: string, adapter: EngineAdapter | undefined, startAgain: () => void): Promise<void> {
  const saved = await readSlotStateAsync(stateRoot, runtime.name);
  if (!saved?.pid || !saved.base_url || !ADOPTABLE_STATES.includes(saved.state)) return;
  const sameProcess = (await isRunning(saved.pid)) && sameCommand(await commandLine(saved.pid), saved.command);
  if (sameProcess && adapter && (await adapter.health(saved.base_url, AbortSignal.timeout(HEALTH_TIMEOUT_MS)).catch(() => 'down')) === 'ready') {
    runtime.adopt(saved.pid, saved.base_url, saved.model_id, saved.command, adapter);
    return;
  }
  if (sameProcess) signalGroup(saved.pid, 'SIGKILL');
  // It was serving before the gateway restarted: bring it back rather than leave it down.
  startAgain();
}
