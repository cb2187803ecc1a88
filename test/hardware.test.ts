// The hardware probe end to end: `svc probe` against a real gateway writes hardware.json,
// GET /api/hardware serves it, the activity log has the row, `svc config hardware` prints it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, runSvc, useTempGateways } from './helpers/gateway.js';

// Every test gets its own home and, where it needs one, its own gateway; both go afterwards.
const { home, gateway } = useTempGateways(afterEach);

describe('svc probe', () => {
  it('writes hardware.json, which GET /api/hardware and svc config hardware then show', async () => {
    const h = home();
    const g = await gateway(h);
    const env = { SVC_API_URL: g.url };
    const file = join(h.configRoot, 'hardware.json');
    expect(existsSync(file)).toBe(false);

    const before = runSvc(['config', 'hardware'], { home: h.home, env });
    expect(before.status).toBe(0);
    expect(before.stdout).toContain('none cached yet (run `svc probe`)');

    const result = runSvc(['probe', '--json'], { home: h.home, env });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const printed = JSON.parse(result.stdout);

    const cached = JSON.parse(readFileSync(file, 'utf8'));
    expect(cached).toEqual(printed);
    expect(cached).toMatchObject({ schema: 1, svc_version: expect.any(String), recommended: expect.stringMatching(/^(vulkan|rocm|cpu)$/) });
    expect(cached.cpu.cores).toBeGreaterThan(0);
    expect(cached.cpu.threads).toBeGreaterThan(0);
    expect(cached.memory.total_mb).toBeGreaterThan(0);
    expect(Array.isArray(cached.gpus)).toBe(true);
    expect(Array.isArray(cached.npus)).toBe(true);
    // This machine has no DRM devices: the probe reports no GPU rather than failing.
    if (!existsSync('/sys/class/drm')) expect(cached).toMatchObject({ gpus: [], recommended: 'cpu' });

    const served = await api(g.url, '/api/hardware');
    expect(served.status).toBe(200);
    expect(served.json.probe).toEqual(cached);
    expect(served.json.host.cpu_count).toBeGreaterThan(0);

    const rows = (await api(g.url, '/api/activity?action=hardware.probe')).json.items;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: 'hardware.probe', actor: 'cli', target: 'hardware.json', outcome: 'ok', details: { recommended: cached.recommended } });

    const text = runSvc(['config', 'hardware'], { home: h.home, env });
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^cpu\s+.+\d+ cores, \d+ threads/m);
    expect(text.stdout).toMatch(/^memory\s+\d+ MiB total/m);
    expect(text.stdout).toMatch(/^gpu\s+/m);
    expect(text.stdout).toMatch(new RegExp(`^recommended\\s+--hardware ${cached.recommended} `, 'm'));
    expect(text.stdout).not.toContain('none cached yet');

    const json = JSON.parse(runSvc(['config', 'hardware', '--json'], { home: h.home, env }).stdout);
    expect(json.probe).toEqual(cached);
  }, 60_000);

  it('prints a readable summary and replaces the cache on every run', async () => {
    const h = home();
    const g = await gateway(h);
    const env = { SVC_API_URL: g.url };
    const first = runSvc(['probe'], { home: h.home, env });
    expect(first.status).toBe(0);
    for (const label of ['cpu', 'memory', 'gpu', 'npu', 'tools', 'recommended', 'probed']) {
      expect(first.stdout).toMatch(new RegExp(`^${label}\\s`, 'm'));
    }
    const firstAt = JSON.parse(readFileSync(join(h.configRoot, 'hardware.json'), 'utf8')).probed_at;

    const second = await api(g.url, '/api/hardware/probe', { method: 'POST' });
    expect(second.status).toBe(200);
    expect(second.json.probed_at >= firstAt).toBe(true);
    expect(JSON.parse(readFileSync(join(h.configRoot, 'hardware.json'), 'utf8'))).toEqual(second.json);
    expect((await api(g.url, '/api/activity?action=hardware.probe')).json.items).toHaveLength(2);
  }, 60_000);

  it('exits 3 when no server is running', () => {
    const h = home();
    const result = runSvc(['probe'], { home: h.home, env: { SVC_API_URL: 'http://127.0.0.1:9' } });
    expect(result.status).toBe(3);
    expect(result.stderr).toMatch(/^svc: cannot reach the svc API/);
    expect(existsSync(join(h.configRoot, 'hardware.json'))).toBe(false);
  }, 60_000);
});
