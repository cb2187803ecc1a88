import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEnvText, readEnvFile, updateEnvText, writeEnvFile } from './env-file.js';

describe('env files', () => {
  it('parses assignments, skipping comments and blank lines, unquoting values', () => {
    const text = '# api.env\nSVC_PORT=8080\n\nexport SVC_AUTH_ENABLED="1"\nNAME=\'a b\'\n  # SVC_X=9\nnot a line\n';
    expect(parseEnvText(text)).toEqual({ SVC_PORT: '8080', SVC_AUTH_ENABLED: '1', NAME: 'a b' });
  });

  it('updates a key in place, keeps comments and other keys, appends new keys, removes undefined ones', () => {
    const text = '# keep me\nSVC_PORT=8080\nSVC_AUTH_ENABLED=0\nOLD=x\n';
    expect(updateEnvText(text, { SVC_AUTH_ENABLED: '1', OLD: undefined, NEW: 'y' })).toBe('# keep me\nSVC_PORT=8080\nSVC_AUTH_ENABLED=1\nNEW=y\n');
  });

  it('leaves a commented-out assignment alone', () => {
    expect(updateEnvText('# SVC_AUTH_ENABLED=1\n', { SVC_AUTH_ENABLED: '0' })).toBe('# SVC_AUTH_ENABLED=1\nSVC_AUTH_ENABLED=0\n');
  });

  it('reads a missing file as empty and writes a new one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-env-'));
    const path = join(dir, 'api.env');
    expect(await readEnvFile(path)).toEqual({});
    await writeEnvFile(path, { SVC_AUTH_ENABLED: '1' });
    expect(readFileSync(path, 'utf8')).toBe('SVC_AUTH_ENABLED=1\n');
    writeFileSync(path, 'A=1\nSVC_AUTH_ENABLED=1\n');
    await writeEnvFile(path, { SVC_AUTH_ENABLED: '0' });
    expect(await readEnvFile(path)).toEqual({ A: '1', SVC_AUTH_ENABLED: '0' });
  });
});
