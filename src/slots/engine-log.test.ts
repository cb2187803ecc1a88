import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineLog, RING_LINE_MAX_CHARS } from './engine-log.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function logFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-engine-log-'));
  dirs.push(dir);
  const path = join(dir, 'engine.log');
  writeFileSync(path, '');
  return path;
}

describe('the bounds of an engine log', () => {
  it('keeps the last 500 lines, each cut at RING_LINE_MAX_CHARS', async () => {
    const path = logFile();
    const log = new EngineLog(path);
    appendFileSync(path, Array.from({ length: 600 }, (_, i) => `line ${i}`).join('\n') + '\n');
    appendFileSync(path, `${'p'.repeat(RING_LINE_MAX_CHARS * 3)}\nlast\n`);
    const lines = await log.tail(1000);
    expect(lines).toHaveLength(500);
    expect(lines.at(-1)).toBe('last');
    expect(lines.at(-2)).toBe(`${'p'.repeat(RING_LINE_MAX_CHARS)}…`);
    expect(lines[0]).toBe('line 102');
  });

  it('takes a line that never ends as a line once it is too long, so it cannot grow', async () => {
    const path = logFile();
    const log = new EngineLog(path);
    appendFileSync(path, 'x'.repeat(RING_LINE_MAX_CHARS + 10));
    const lines = await log.tail(10);
    expect(lines).toEqual([`${'x'.repeat(RING_LINE_MAX_CHARS)}…`]);
  });

  it('rotates the file past its size cap', async () => {
    const path = logFile();
    const log = new EngineLog(path, 4096);
    appendFileSync(path, `${'y'.repeat(100)}\n`.repeat(50));
    await log.pump();
    expect(statSync(path).size).toBe(0);
    expect(statSync(`${path}.1`).size).toBe(101 * 50);
  });
});
