// Naps on a fake clock: a nap can end by its own timer only when the test moves the clock,
// so a nap that ends without that was ended by the log. The watch itself is real (inotify on
// a temp file); the waker says when it has taken each write, so no test guesses how long
// the kernel takes to report one.
import { EventEmitter, once } from 'node:events';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LogWaker, MIN_GAP_MS } from './log-waker.js';

const dirs: string[] = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A waker on an empty engine log, and a `write` event each time it has taken a write. */
function wakerOnLog() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-waker-'));
  dirs.push(dir);
  const path = join(dir, 'engine.log');
  writeFileSync(path, '');
  const seen = new EventEmitter();
  const waker = new LogWaker(path, () => seen.emit('write'));
  /** Append a line and wait until the waker has taken it. */
  const write = async (line: string) => {
    const taken = once(seen, 'write');
    appendFileSync(path, `${line}\n`);
    await taken;
    await vi.advanceTimersByTimeAsync(0); // settle what the write resolved, without moving the clock
  };
  return { waker, write };
}

/** Whether the nap has ended, asked at any time. */
function track(nap: Promise<void>): () => boolean {
  let over = false;
  void nap.then(() => (over = true));
  return () => over;
}

describe('LogWaker', () => {
  it('ends a nap when the engine writes to its log, with no time passing', async () => {
    const { waker, write } = wakerOnLog();
    const over = track(waker.nap(60_000));
    await vi.advanceTimersByTimeAsync(0);
    expect(over(), 'nap over').toBe(false);
    await write('srv  llama_server: model loaded');
    expect(over(), 'nap over').toBe(true);
    waker.close();
  });

  it('remembers a write made while no nap was waiting: the next nap ends at once', async () => {
    const { waker, write } = wakerOnLog();
    await write('a line while the probe ran');
    const over = track(waker.nap(60_000));
    await vi.advanceTimersByTimeAsync(0);
    expect(over(), 'nap over').toBe(true);
    waker.close();
  });

  it(`wakes at most once per ${MIN_GAP_MS} ms: a write just after a wake ends the next nap when the gap is over`, async () => {
    const { waker, write } = wakerOnLog();
    const first = track(waker.nap(60_000));
    await write('one');
    expect(first(), 'first nap over').toBe(true);
    const second = track(waker.nap(60_000));
    await write('two');
    expect(second(), 'second nap over').toBe(false);
    await vi.advanceTimersByTimeAsync(MIN_GAP_MS - 1);
    expect(second(), 'second nap over').toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(second(), 'second nap over').toBe(true);
    waker.close();
  });

  it('without a write, a nap lasts its time; a missing file only means no early wake', async () => {
    const waker = new LogWaker(join(tmpdir(), 'svc-no-such-dir', 'engine.log'));
    const over = track(waker.nap(60_000));
    await vi.advanceTimersByTimeAsync(59_999);
    expect(over(), 'nap over').toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(over(), 'nap over').toBe(true);
    waker.close();
  });
});
