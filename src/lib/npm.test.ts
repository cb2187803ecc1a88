import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REGISTRY, registryUrl, runLogged } from './npm.js';

describe('npm helpers', () => {
  it('takes SVC_NPM_REGISTRY before npm_config_registry before npmjs.org, always with a trailing slash', () => {
    expect(registryUrl({ SVC_NPM_REGISTRY: 'http://a', npm_config_registry: 'http://b/' })).toBe('http://a/');
    expect(registryUrl({ npm_config_registry: 'http://b/' })).toBe('http://b/');
    expect(registryUrl({})).toBe(DEFAULT_REGISTRY);
  });

  it('runs a command with its output in the log file and its exit code returned', async () => {
    const logFile = join(mkdtempSync(join(tmpdir(), 'svc-npm-')), 'install.log');
    const run = await runLogged(process.execPath, ['-e', 'console.log("out"); console.error("err"); process.exit(3)'], { logFile });
    expect(run).toMatchObject({ code: 3, stdout: 'out\n' });
    expect(run.tail).toContain('err');
    expect(readFileSync(logFile, 'utf8')).toMatch(/^\$ .* -e [\s\S]*out\n[\s\S]*\[exit 3\]\n$/);
  });
});
