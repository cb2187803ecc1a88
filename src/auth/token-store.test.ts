import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../../test/helpers/wait.js';
import { PAUSE_BEFORE_RENAME_ENV, PAUSED_SUFFIX } from '../config/atomic.js';
import { SerialQueue } from '../lib/serial-queue.js';
import { TokenStore } from './token-store.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-tokens-'));
  file = join(dir, 'tokens.toml');
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

const row = (id: string, label: string) => `[[tokens]]\nid = "${id}"\nlabel = "${label}"\nscope = "all"\nhash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g"\ncreated_at = "2026-11-23T00:00:00Z"\n`;

describe('TokenStore', () => {
  it('creates, lists and revokes rows in a 0600 file', async () => {
    const store = new TokenStore(file, new SerialQueue());
    await store.reload();
    const { row: created, token } = await store.create('ci', 'v1-only');
    expect(token.startsWith(`svc_${created.id}.`)).toBe(true);
    expect(store.list().map((r) => r.label)).toEqual(['ci']);
    expect(readFileSync(file, 'utf8')).not.toContain(token.split('.')[1]);
    await store.revoke(created.id);
    expect(store.list()).toEqual([]);
    await expect(store.revoke(created.id)).rejects.toMatchObject({ code: 'auth.unknown_token' });
  });

  it('never writes back a row that was removed by hand while a change was being written', async () => {
    writeFileSync(file, `schema_version = 1\n\n${row('0badc0de', 'by-hand')}`);
    const store = new TokenStore(file, new SerialQueue());
    await store.reload();
    // The hand edit lands where only the re-check before the rename can see it: create() has
    // read the file and written its new content to the temp file, which waits to be renamed.
    vi.stubEnv(PAUSE_BEFORE_RENAME_ENV, 'tokens.toml');
    const creating = store.create('new', 'all');
    const marker = await waitFor(() => readdirSync(dir).find((name) => name.endsWith(PAUSED_SUFFIX)), { what: 'the token write to pause before its rename' });
    writeFileSync(file, `schema_version = 1\n\n${row('0badc0d2', 'other')}`);
    vi.unstubAllEnvs(); // the write computed again from the edited file goes through
    rmSync(join(dir, marker));
    await creating;
    const onDisk = readFileSync(file, 'utf8');
    expect(onDisk).not.toContain('0badc0de');
    expect(onDisk).toContain('0badc0d2');
    expect(store.list().map((r) => r.label).sort()).toEqual(['new', 'other']);
  });

  it('counts an invalid file as no tokens and refuses to change it', async () => {
    writeFileSync(file, `schema_version = 1\n\n${row('0badc0de', 'by-hand')}[[tokens]]\nid = 7\n`);
    const lines: string[] = [];
    const store = new TokenStore(file, new SerialQueue(), (line) => lines.push(line));
    await store.reload();
    expect(store.list()).toEqual([]);
    expect(lines.join('\n')).toMatch(/tokens\.toml is not valid/);
    await expect(store.create('x', 'all')).rejects.toMatchObject({ code: 'config.invalid' });
  });
});
