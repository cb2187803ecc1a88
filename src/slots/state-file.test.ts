import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSlotState, slotStateDir, type SlotStateFile } from '../config/slot-state-file.js';
import { SlotStateWriter } from './state-file.js';
import { SLOT_STATES } from './state-machine.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-state-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const stateNumber = (n: number): SlotStateFile => ({
  name: 'chat',
  state: SLOT_STATES[n % SLOT_STATES.length]!,
  pid: 1000 + n,
  port: 8081,
  model_id: 'tiny',
  base_url: 'http://127.0.0.1:8081',
  command: ['llama-server'],
  started_at: null,
  updated_at: new Date(n).toISOString(),
  message: `write ${n}`,
});

describe('SlotStateWriter', () => {
  it('many writes in a row, some while others are on disk: the file ends with the last one', async () => {
    const errors: Error[] = [];
    const writer = new SlotStateWriter(root, (e) => errors.push(e));
    for (let n = 0; n < 200; n++) {
      writer.write(stateNumber(n));
      if (n % 37 === 0) await new Promise((r) => setImmediate(r)); // let a write get under way
    }
    await writer.flush();
    expect(errors).toEqual([]);
    expect(readSlotState(root, 'chat')).toEqual(stateNumber(199));
    expect(readdirSync(slotStateDir(root, 'chat'))).toEqual(['state.json']); // no temp file left
  });

  it('each flush sees the state written before it, in order', async () => {
    const writer = new SlotStateWriter(root, () => undefined);
    const seen: string[] = [];
    for (let n = 0; n < 20; n++) {
      writer.write(stateNumber(n));
      writer.write(stateNumber(n + 1000));
      await writer.flush();
      seen.push(JSON.parse(readFileSync(join(slotStateDir(root, 'chat'), 'state.json'), 'utf8')).message);
    }
    expect(seen).toEqual(Array.from({ length: 20 }, (_, n) => `write ${n + 1000}`));
  });

  it('a write that fails is reported and does not stop the later ones', async () => {
    const errors: Error[] = [];
    const writer = new SlotStateWriter(join(root, 'file-not-dir'), (e) => errors.push(e));
    writeFileSync(join(root, 'file-not-dir'), 'a file where the state root should be');
    writer.write(stateNumber(1));
    await writer.flush();
    expect(errors).toHaveLength(1);
    rmSync(join(root, 'file-not-dir'));
    writer.write(stateNumber(2));
    await writer.flush();
    expect(readSlotState(join(root, 'file-not-dir'), 'chat')?.message).toBe('write 2');
  });
});
