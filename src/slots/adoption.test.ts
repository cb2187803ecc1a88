// Adoption on its own: state.json records written by the test, a real process where one is
// needed (a detached `sleep`, never the test's own process), and a fake adapter.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeSlotState, type SlotStateFile } from '../config/slot-state-file.js';
import type { EngineAdapter, HealthState } from '../engines/types.js';
import { commandLine, signalGroup } from '../lib/process.js';
import { adoptLeftEngine, InitGate } from './adoption.js';

const adapter = (health: HealthState) => ({ health: async () => health }) as unknown as EngineAdapter;

function target() {
  const adopted: unknown[][] = [];
  let startedAgain = 0;
  return { runtime: { name: 'chat', adopt: (...args: unknown[]) => void adopted.push(args) }, adopted, startAgain: () => void startedAgain++, startedAgain: () => startedAgain };
}

async function record(over: Partial<SlotStateFile>): Promise<string> {
  const stateRoot = mkdtempSync(join(tmpdir(), 'svc-adopt-'));
  await writeSlotState(stateRoot, { name: 'chat', state: 'ready', pid: null, port: 8081, model_id: 'tiny', base_url: 'http://127.0.0.1:8081', command: null, started_at: null, updated_at: new Date().toISOString(), message: null, ...over });
  return stateRoot;
}

const children: number[] = [];
afterEach(() => children.splice(0).forEach((pid) => signalGroup(pid, 'SIGKILL')));

/** A process in its own group, standing in for an engine a previous gateway left. */
async function leftEngine(): Promise<{ pid: number; command: string[]; exited: Promise<unknown> }> {
  const child = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
  const pid = child.pid!;
  children.push(pid);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { pid, command: (await commandLine(pid))!, exited };
}

describe('adoptLeftEngine', () => {
  it('takes back the recorded engine when the same process runs and answers healthy', async () => {
    const engine = await leftEngine();
    const stateRoot = await record({ pid: engine.pid, command: engine.command, state: 'warming' });
    const t = target();
    await adoptLeftEngine(t.runtime, stateRoot, adapter('ready'), t.startAgain);
    expect(t.adopted).toEqual([[engine.pid, 'http://127.0.0.1:8081', 'tiny', engine.command, expect.anything()]]);
    expect(t.startedAgain()).toBe(0);
  });

  it('kills a recorded engine that no longer answers healthy, and starts the slot again', async () => {
    const engine = await leftEngine();
    const stateRoot = await record({ pid: engine.pid, command: engine.command });
    const t = target();
    await adoptLeftEngine(t.runtime, stateRoot, adapter('down'), t.startAgain);
    await engine.exited; // SIGKILLed: the test would time out otherwise
    expect(t.adopted).toEqual([]);
    expect(t.startedAgain()).toBe(1);
  });

  it('starts the slot again when the recorded process is gone or runs something else, and signals nothing', async () => {
    const other = await leftEngine();
    const stateRoot = await record({ pid: other.pid, command: ['llama-server', '--port', '8081'] });
    const t = target();
    await adoptLeftEngine(t.runtime, stateRoot, adapter('ready'), t.startAgain);
    expect(t.adopted).toEqual([]);
    expect(t.startedAgain()).toBe(1);
    expect(process.kill(other.pid, 0)).toBe(true); // not ours: left alone
  });

  it('leaves the slot alone when the record says it was stopped, or there is no record', async () => {
    const t = target();
    await adoptLeftEngine(t.runtime, await record({ state: 'stopped', pid: 1 }), adapter('ready'), t.startAgain);
    await adoptLeftEngine(t.runtime, mkdtempSync(join(tmpdir(), 'svc-adopt-')), adapter('ready'), t.startAgain);
    expect(t.adopted).toEqual([]);
    expect(t.startedAgain()).toBe(0);
  });
});

describe('InitGate', () => {
  it('holds until released, then lets everyone through; nothing is held by default', async () => {
    const gate = new InitGate();
    expect(gate.held).toBeNull();
    gate.hold();
    gate.hold(); // holding twice is one hold
    const held = gate.held!;
    let passed = false;
    const waiter = held.then(() => (passed = true));
    await Promise.resolve();
    expect(passed).toBe(false);
    gate.release();
    await waiter;
    expect(passed).toBe(true);
    expect(gate.held).toBeNull();
  });
});
