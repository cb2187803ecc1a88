// A crash between writing the new file and renaming it over the old one never tears a
// config file. The kill is placed there on purpose, not by timing: the atomic writer's test
// hook (SVC_TEST_PAUSE_BEFORE_RENAME, src/config/atomic.ts) makes a process write and sync
// the temp file, create `<temp>.paused`, and wait. Each test waits for that marker, checks
// the temp file is complete, SIGKILLs the process, and checks what a crash there leaves.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { PAUSE_BEFORE_RENAME_ENV, PAUSED_SUFFIX, removeStaleTempFiles } from '../src/config/atomic.js';
import { api, REPO_ROOT, startGateway, tempHome } from './helpers/gateway.js';
import { waitFor } from './helpers/wait.js';

const TEMP_MARK = '.svc-tmp-';

/** Wait for a writer to pause before its rename; returns the temp file's path. */
async function pausedTempFile(dir: string): Promise<string> {
  const marker = await waitFor(() => readdirSync(dir), { what: `a ${PAUSED_SUFFIX} marker in ${dir}`, until: (names) => names.some((name) => name.endsWith(PAUSED_SUFFIX)), timeout: 20_000 });
  return join(dir, marker.find((name) => name.endsWith(PAUSED_SUFFIX))!.slice(0, -PAUSED_SUFFIX.length));
}

const tempNames = (dir: string) => readdirSync(dir).filter((name) => name.includes(TEMP_MARK));

describe('a crash during a settings write never tears svc.toml', () => {
  it('SIGKILLed between the write and the rename: svc.toml keeps the old value; a restart removes the temp file and serves it', async () => {
    const home = tempHome({ 'svc.toml': 'kept_unknown = "yes"\n[slots]\nidle_timeout_s = 0\n' });
    const svcToml = join(home.configRoot, 'svc.toml');
    try {
      const gw = await startGateway(home.home, { env: { [PAUSE_BEFORE_RENAME_ENV]: 'svc.toml' } });
      const answer = fetch(`${gw.url}/api/settings`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ slots: { idle_timeout_s: 300 } }),
      }).then((r) => r.status, () => 'no answer');

      const temp = await pausedTempFile(home.configRoot);
      // The new file is whole (the unknown key kept), and not yet in place.
      expect(parse(readFileSync(temp, 'utf8'))).toEqual({ kept_unknown: 'yes', slots: { idle_timeout_s: 300 } });
      expect(parse(readFileSync(svcToml, 'utf8'))).toEqual({ kept_unknown: 'yes', slots: { idle_timeout_s: 0 } });
      await gw.kill();

      // The kill landed between the write and the rename: the PUT never got its answer, the
      // temp file is still there, and svc.toml is the old one, whole.
      expect(await answer).toBe('no answer');
      expect(existsSync(temp)).toBe(true);
      expect(parse(readFileSync(svcToml, 'utf8'))).toEqual({ kept_unknown: 'yes', slots: { idle_timeout_s: 0 } });

      const restarted = await startGateway(home.home);
      try {
        expect(tempNames(home.configRoot)).toEqual([]);
        const { json } = await api(restarted.url, '/api/settings');
        expect(json.settings.slots.idle_timeout_s).toBe(0);
      } finally {
        await restarted.stop();
      }
    } finally {
      rmSync(home.home, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('writeFileAtomic under SIGKILL', () => {
  // A process that writes svc.toml once, with the test hook set: it pauses before the rename.
  const WRITER = `
    import { writeFileAtomic } from ${JSON.stringify(join(REPO_ROOT, 'dist/config/atomic.js'))};
    await writeFileAtomic(process.argv[1], \`version = 1\\npadding = "\${'y'.repeat(256 * 1024)}"\\nend = 1\\n\`);
    process.stdout.write('renamed\\n');
  `;
  const OLD = 'version = 0\npadding = ""\nend = 0\n';

  function writer(target: string) {
    const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER, target], {
      env: { ...process.env, [PAUSE_BEFORE_RENAME_ENV]: 'svc.toml' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | number | null>((done) => child.once('exit', (code, signal) => done(signal ?? code)));
    return { child, exited, out: () => out };
  }

  it('killed between the write and the rename: the old file stays whole, the complete temp file is left for clean-up', async () => {
    const home = tempHome({ 'svc.toml': OLD });
    const target = join(home.configRoot, 'svc.toml');
    try {
      const { child, exited, out } = writer(target);
      const temp = await pausedTempFile(home.configRoot);
      const written = parse(readFileSync(temp, 'utf8')) as { version: number; padding: string; end: number };
      expect([written.version, written.padding.length, written.end]).toEqual([1, 256 * 1024, 1]);
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      expect(out()).toBe('');
      expect(existsSync(temp)).toBe(true);
      expect(readFileSync(target, 'utf8')).toBe(OLD);
      // The temp file and its marker: what a restarted gateway removes.
      expect(removeStaleTempFiles(home.configRoot)).toBe(2);
      expect(tempNames(home.configRoot)).toEqual([]);
    } finally {
      rmSync(home.home, { recursive: true, force: true });
    }
  }, 30_000);

  it('the same write, let go instead, renames the new file into place and leaves nothing behind', async () => {
    const home = tempHome({ 'svc.toml': OLD });
    const target = join(home.configRoot, 'svc.toml');
    try {
      const { exited, out } = writer(target);
      const temp = await pausedTempFile(home.configRoot);
      expect(readFileSync(target, 'utf8')).toBe(OLD);
      rmSync(`${temp}${PAUSED_SUFFIX}`);
      expect(await exited).toBe(0);
      expect(out()).toBe('renamed\n');
      expect(parse(readFileSync(target, 'utf8'))).toMatchObject({ version: 1, end: 1 });
      expect(tempNames(home.configRoot)).toEqual([]);
    } finally {
      rmSync(home.home, { recursive: true, force: true });
    }
  }, 30_000);
});
