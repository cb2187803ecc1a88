// Kill the gateway with SIGKILL while it is writing svc.toml, many times over, and check
// that svc.toml always parses, validates, and holds one of the values that was sent.
// A ~1 MiB svc.toml (an unknown key, kept on every write) makes each write take a while,
// and each kill is aimed at the end of a PUT, where the write happens.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, startGateway, tempHome } from './helpers/gateway.js';

const ROUNDS = 20;
const PADDING = Array.from({ length: 2000 }, (_, i) => `"${String(i).padStart(4, '0')}${'x'.repeat(480)}"`).join(',\n  ');

let nextValue = 1;

function put(url: string, value: number): Promise<unknown> {
  return fetch(`${url}/api/settings`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ slots: { idle_timeout_s: value } }),
  }).catch(() => undefined); // the server may be killed mid-request
}

describe('a crash during a settings write never tears svc.toml', () => {
  it(`survives ${ROUNDS} SIGKILLs during writes`, async () => {
    const home = tempHome({ 'svc.toml': `padding_kept_unknown = [\n  ${PADDING}\n]\n[slots]\nidle_timeout_s = 0\n` });
    const sent = new Set<number>([0]);
    let midWrite = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const gw = await startGateway(home.home);
      // Time one PUT, then kill the next one in the last part of its run, where the write is.
      const started = performance.now();
      sent.add(nextValue);
      await put(gw.url, nextValue++);
      const latency = performance.now() - started;
      sent.add(nextValue);
      void put(gw.url, nextValue++);
      await new Promise((r) => setTimeout(r, latency * (0.4 + Math.random() * 0.8)));
      await gw.kill();

      // A temp file left behind means the kill landed inside a write.
      if (readdirSync(home.configRoot).some((name) => name.includes('.svc-tmp-'))) midWrite++;
      const text = readFileSync(join(home.configRoot, 'svc.toml'), 'utf8');
      const doc = parse(text) as { slots: { idle_timeout_s: number }; padding_kept_unknown: string[] };
      expect(sent.has(doc.slots.idle_timeout_s)).toBe(true);
      expect(doc.padding_kept_unknown).toHaveLength(2000);
    }
    // Restarting cleans up what the killed writers left.
    const gw = await startGateway(home.home);
    expect(readdirSync(home.configRoot).filter((name) => name.includes('.svc-tmp-'))).toEqual([]);
    await gw.stop();
    console.log(`crash-write: ${ROUNDS} kills, ${midWrite} landed mid-write, ${sent.size} values sent`);
  }, 180_000);
});

describe('writeFileAtomic under SIGKILL', () => {
  // A process that does nothing but rewrite svc.toml spends nearly all its time inside a
  // write, so almost every kill lands mid-write.
  const WRITER = `
    import { writeFileAtomicSync } from ${JSON.stringify(join(REPO_ROOT, 'dist/config/atomic.js'))};
    const [target, padding] = [process.argv[1], 'y'.repeat(256 * 1024)];
    for (let i = 1; ; i++) {
      writeFileAtomicSync(target, \`version = \${i}\\npadding = "\${padding}"\\nend = \${i}\\n\`);
      if (i === 1) process.stdout.write('writing\\n');
    }
  `;

  it('leaves the old or the new file, never a torn one, across 40 kills', async () => {
    const home = tempHome({ 'svc.toml': 'version = 0\npadding = ""\nend = 0\n' });
    const target = join(home.configRoot, 'svc.toml');
    let midWrite = 0;
    for (let round = 0; round < 40; round++) {
      const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER, target], { stdio: ['ignore', 'pipe', 'inherit'] });
      // Kill only once the writer is in its loop, however slowly the process started.
      await new Promise((r) => child.stdout.once('data', r));
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 30));
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      if (readdirSync(home.configRoot).some((name) => name.includes('.svc-tmp-'))) midWrite++;
      const doc = parse(readFileSync(target, 'utf8')) as { version: number; end: number };
      expect(doc.end).toBe(doc.version); // the first and last lines come from the same write
    }
    console.log(`atomic-write: 40 kills, ${midWrite} landed mid-write`);
    expect(midWrite).toBeGreaterThan(0);
  }, 120_000);
});
