import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LogWaker } from './log-waker.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function logFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-waker-'));
  dirs.push(dir);
  const path = join(dir, 'engine.log');
  writeFileSync(path, '');
  return path;
}

/** Which comes first: the nap, or a 2 s marker. */
const first = (nap: Promise<void>) => Promise.race([nap.then(() => 'woke'), new Promise((r) => setTimeout(() => r('timeout'), 2_000))]);

describe('LogWaker', () => {
  it('ends a nap when the engine writes to its log, long before the nap would end', async () => {
    const path = logFile();
    const waker = new LogWaker(path);
    const nap = waker.nap(60_000);
    setTimeout(() => appendFileSync(path, 'srv  llama_server: model loaded\n'), 50);
    expect(await first(nap)).toBe('woke');
    waker.close();
  });

  it('remembers a write made while no nap was waiting: the next nap ends at once', async () => {
    const path = logFile();
    const waker = new LogWaker(path);
    appendFileSync(path, 'a line while the probe ran\n');
    await new Promise((r) => setTimeout(r, 100)); // the watch event arrives meanwhile
    expect(await first(waker.nap(60_000))).toBe('woke');
    waker.close();
  });

  it('without a write, a nap lasts its time; a missing file only means no early wake', async () => {
    const waker = new LogWaker(join(tmpdir(), 'svc-no-such-dir', 'engine.log'));
    expect(await first(waker.nap(60_000))).toBe('timeout');
    expect(await first(waker.nap(20))).toBe('woke');
    waker.close();
  });
});
