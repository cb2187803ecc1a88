import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitChangeSet, journalPathOf, recoverChangeSet } from './change-set.js';

function roots() {
  const base = mkdtempSync(join(tmpdir(), 'svc-changeset-'));
  return { configRoot: join(base, 'config'), stateRoot: join(base, 'state') };
}

describe('change sets', () => {
  it('writes every file and removes the journal; a failed check puts every file back, a created one removed', async () => {
    const paths = roots();
    const a = join(paths.configRoot, 'a.toml');
    const b = join(paths.configRoot, 'b.toml');
    await commitChangeSet(paths, 'first', [{ path: a, after: 'a1' }], async () => undefined);
    expect(readFileSync(a, 'utf8')).toBe('a1');
    await expect(commitChangeSet(paths, 'second', [{ path: a, after: 'a2' }, { path: b, after: 'b2' }], async () => {
      expect(readFileSync(a, 'utf8')).toBe('a2');
      throw new Error('does not load');
    })).rejects.toThrow('does not load');
    expect(readFileSync(a, 'utf8')).toBe('a1');
    expect(existsSync(b)).toBe(false);
    expect(existsSync(journalPathOf(paths))).toBe(false);
  });

  it('recovery rolls back what a journal names, and refuses a journal naming a path outside the roots', async () => {
    const paths = roots();
    const a = join(paths.configRoot, 'a.toml');
    await commitChangeSet(paths, 'first', [{ path: a, after: 'old' }], async () => undefined);
    writeFileSync(journalPathOf(paths), JSON.stringify({ kind: 'svc.change-set', label: 'cut', started_at: '', files: [{ path: a, before: Buffer.from('old').toString('base64') }, { path: join(paths.configRoot, 'new.toml'), before: null }] }));
    writeFileSync(a, 'half');
    writeFileSync(join(paths.configRoot, 'new.toml'), 'x');
    expect(await recoverChangeSet(paths)).toEqual({ label: 'cut', files: [a, join(paths.configRoot, 'new.toml')] });
    expect(readFileSync(a, 'utf8')).toBe('old');
    expect(existsSync(join(paths.configRoot, 'new.toml'))).toBe(false);
    expect(await recoverChangeSet(paths)).toBeNull();
    writeFileSync(journalPathOf(paths), JSON.stringify({ kind: 'svc.change-set', label: 'evil', started_at: '', files: [{ path: '/etc/passwd', before: null }] }));
    await expect(recoverChangeSet(paths)).rejects.toThrow('outside the config and state roots');
  });
});
