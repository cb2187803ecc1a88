import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SerialQueue } from '../config/serial-queue.js';
import { TokenStore } from './token-store.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-tokens-'));
  file = join(dir, 'tokens.toml');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

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

  it('never writes back a row that was removed by hand while a change was being computed', async () => {
    writeFileSync(file, `schema_version = 1\n\n${row('0badc0de', 'by-hand')}`);
    const store = new TokenStore(file, new SerialQueue());
    await store.reload();
    // create() reads the file, then spends ~20 ms hashing the new secret with argon2; the hand
    // edit lands inside that window (a later landing only makes the read see it directly).
    const creating = store.create('new', 'all');
    await new Promise((r) => setTimeout(r, 3));
    writeFileSync(file, `schema_version = 1\n\n${row('0badc0d2', 'other')}`);
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
