// Engines a dead gateway left running in its home. Engines live in their own process groups
// so that a crashed gateway's successor can re-adopt them (slots/adoption.ts); a foreground
// run (`npm start`) has no successor, so when its gateway dies without stopping them, it stops
// them itself with this, and so does `svc uninstall`. Only processes still recognisable as the
// engine its state.json names are touched, and nothing at all while a live gateway holds the
// home. It runs without a gateway, so it reads the state records (config/slot-state-file.ts),
// never the slot supervisor. It holds the home's lock while it checks, stops and rewrites
// (config/instance-lock.ts, a task lock): a gateway starting meanwhile would adopt an engine
// it is stopping, and have its state.json rewritten under it.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { acquireTaskLock, type InstanceLockInfo } from '../config/instance-lock.js';
import { commandLine, isAlive, sameCommand, stopProcessGroup } from '../lib/process.js';
import { readSlotState, writeSlotState, type SlotStateFile } from '../config/slot-state-file.js';

export interface StoppedEngine {
  slot: string;
  pid: number;
  /** It ignored SIGTERM for the grace period and was killed. */
  escalated: boolean;
  /** Gone at the end (SIGKILL could not be refused, but a process in D state can linger). */
  stopped: boolean;
}

export interface LeftoverOutcome {
  /** The gateway that serves the home now: its engines are its own, and were left alone. */
  heldBy?: InstanceLockInfo;
  engines: StoppedEngine[];
}

/** What the home's lock says while this runs (a second `svc serve` prints it). */
export const LEFTOVER_TASK = 'stopping the engines a dead gateway left';

export async function stopLeftoverEngines(stateRoot: string, graceMs = 10_000): Promise<LeftoverOutcome> {
  // No state records, no engines: nothing to lock (and no state root made where there is none).
  if (!existsSync(join(stateRoot, 'slots'))) return { engines: [] };
  const lock = acquireTaskLock(stateRoot, LEFTOVER_TASK);
  if ('heldBy' in lock) return { heldBy: lock.heldBy, engines: [] };
  try {
    return await stopUnderLock(stateRoot, graceMs);
  } finally {
    lock.acquired.release();
  }
}

async function stopUnderLock(stateRoot: string, graceMs: number): Promise<LeftoverOutcome> {
  const saved = savedSlotStates(stateRoot).filter((state) => state.pid !== null && isAlive(state.pid));
  const recognised = await Promise.all(saved.map(async (state) => sameCommand(await commandLine(state.pid!), state.command)));
  const leftovers = saved.filter((_, i) => recognised[i]);
  const engines = await Promise.all(leftovers.map(async (saved) => {
    const pid = saved.pid!;
    const { stopped, escalated } = await stopProcessGroup(pid, graceMs);
    // So the next gateway does not bring it back as "was serving" (slots/adoption.ts, adoptLeftEngine).
    if (stopped) await writeSlotState(stateRoot, { ...saved, state: 'stopped', pid: null, updated_at: new Date().toISOString(), message: 'stopped after its gateway died' });
    return { slot: saved.name, pid, escalated, stopped };
  }));
  return { engines };
}

function savedSlotStates(stateRoot: string): SlotStateFile[] {
  let names: string[];
  try {
    names = readdirSync(join(stateRoot, 'slots'));
  } catch {
    return [];
  }
  return names.map((name) => readSlotState(stateRoot, name)).filter((saved): saved is SlotStateFile => saved !== undefined);
}
