import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeStaleTempFiles, writeFileAtomic } from './atomic.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-atomic-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('writeFileAtomic', () => {
  it('creates missing directories and the file', async () => {
    const target = join(dir, 'a/b/c/svc.toml');
    await writeFileAtomic(target, '[slots]\nmax_slots = 1\n');
    expect(readFileSync(target, 'utf8')).toBe('[slots]\nmax_slots = 1\n');
    expect(readdirSync(join(dir, 'a/b/c'))).toEqual(['svc.toml']);
  });

  it('replaces the content of an existing file', async () => {
    const target = join(dir, 'svc.toml');
    writeFileSync(target, 'old content that is longer than the new one\n');
    await writeFileAtomic(target, 'new\n');
    expect(readFileSync(target, 'utf8')).toBe('new\n');
  });

  it('asks stillCurrent once the new content is written, and leaves the target alone when it says no', async () => {
    const target = join(dir, 'tokens.toml');
    writeFileSync(target, 'read by the writer\n');
    // Another writer (a hand edit) replaces the file while this write is under way.
    const stillCurrent = async () => {
      expect(readdirSync(dir).filter((name) => name !== 'tokens.toml')).toHaveLength(1); // the temp file, written
      writeFileSync(target, 'edited by hand\n');
      return readFileSync(target, 'utf8') === 'read by the writer\n';
    };
    expect(await writeFileAtomic(target, 'svc\'s change\n', { stillCurrent })).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('edited by hand\n');
    expect(readdirSync(dir)).toEqual(['tokens.toml']);
    expect(await writeFileAtomic(target, 'svc\'s change\n', { stillCurrent: async () => true })).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('svc\'s change\n');
  });

  it('writes bytes exactly', async () => {
    const target = join(dir, 'bytes.bin');
    const bytes = Uint8Array.from([0, 1, 2, 255, 10, 13]);
    await writeFileAtomic(target, bytes);
    expect(Buffer.compare(readFileSync(target), Buffer.from(bytes))).toBe(0);
  });

  it('keeps the mode of an existing file', async () => {
    const target = join(dir, 'tokens.toml');
    writeFileSync(target, 'secret = 1\n');
    chmodSync(target, 0o600);
    await writeFileAtomic(target, 'secret = 2\n', { mode: 0o644 });
    expect(readFileSync(target, 'utf8')).toBe('secret = 2\n');
    expect(modeOf(target)).toBe(0o600);

    chmodSync(target, 0o640);
    await writeFileAtomic(target, 'secret = 3\n');
    expect(modeOf(target)).toBe(0o640);
  });

  it('gives a new file the requested mode', async () => {
    const target = join(dir, 'new.toml');
    await writeFileAtomic(target, 'x = 1\n', { mode: 0o600 });
    expect(modeOf(target)).toBe(0o600);
  });

  it('leaves no temp files behind, also after many writes', async () => {
    const target = join(dir, 'svc.toml');
    for (let i = 0; i < 20; i++) await writeFileAtomic(target, `n = ${i}\n`);
    expect(readdirSync(dir)).toEqual(['svc.toml']);
    expect(readFileSync(target, 'utf8')).toBe('n = 19\n');
  });

  it('leaves the old file and no temp file when the rename fails', async () => {
    // The target is a non-empty directory: the temp file is written, the rename fails.
    const target = join(dir, 'occupied');
    mkdirSync(target);
    writeFileSync(join(target, 'keep'), 'x');
    await expect(writeFileAtomic(target, 'data')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['occupied']);
    expect(readFileSync(join(target, 'keep'), 'utf8')).toBe('x');
  });
});

describe('removeStaleTempFiles', () => {
  it('removes only files carrying the temp mark and says how many', () => {
    // Named the way writeFileAtomic names its temp files: .<base>.svc-tmp-<pid>-<hex>
    const stale = ['.svc.toml.svc-tmp-12345-deadbeef', '.chat.toml.svc-tmp-1-00ff00ff'];
    const keep = ['svc.toml', 'svc.toml.v1.bak', '.hidden', 'svc-tmp.toml', 'notes.tmp'];
    for (const name of [...stale, ...keep]) writeFileSync(join(dir, name), 'x');
    expect(removeStaleTempFiles(dir)).toBe(2);
    expect(readdirSync(dir).sort()).toEqual([...keep].sort());
    expect(removeStaleTempFiles(dir)).toBe(0);
  });

  it('sweeps a killed writer\'s leftover next to a real file', async () => {
    const target = join(dir, 'svc.toml');
    await writeFileAtomic(target, 'a = 1\n');
    const orphan = join(dir, `.svc.toml.svc-tmp-${process.pid}-0badf00d`);
    writeFileSync(orphan, 'half');
    expect(removeStaleTempFiles(dir)).toBe(1);
    expect(readdirSync(dir)).toEqual(['svc.toml']);
  });

  it('returns 0 for a missing directory', () => {
    expect(removeStaleTempFiles(join(dir, 'nope'))).toBe(0);
  });
});
