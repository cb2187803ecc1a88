// What a slot's engine really computes on (issue 10, item 1.5): the built-in engine says it in
// GET /v1/models meta.runtime, and the gateway shows it in the slot view; a gpu-* device on a
// host without a GPU is a warning in the view and one activity row, not a silent "ready".
// README's `svc slot list` sample is checked against the real list here.
// (The llama-server side, parsed from its log, is in test/slot-api-llama.test.ts.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, REPO_ROOT, runSvc, useTempGateways, type Gateway } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { freeSlotPort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

const { gateway: start } = useTempGateways(afterEach);
const slot = async (gw: Gateway, name: string) => (await api(gw.url, `/api/slots/${name}`)).json;

describe('the backend a built-in slot really uses', () => {
  it('gpu-vulkan on a host without a GPU: ready on the CPU, with a warning in the view, `svc slot list|status` and one activity row; a cpu slot has none', async () => {
    const home = await homeWithTinySlots([{ name: 'plain', provider: 'builtin' }]);
    home.write('slots/vk.toml', `[slot]\nname = "vk"\nprovider = "builtin"\nport = ${await freeSlotPort()}\ndevice = "gpu-vulkan"\n\n[model]\ndefault = "tiny"\ncontext_size = 512\n`);
    home.write('svc.toml', '[slots]\nevict_pressure_mb = 0\n');
    const gw = await start(home, { env: { PATH: '/usr/bin:/bin' } });
    const vk = await waitFor(() => slot(gw, 'vk'), { what: 'vk ready', until: (s) => s.state === 'ready', timeout: 90_000 });
    expect(vk).toMatchObject({ device: 'gpu-vulkan', backend: 'cpu', gpu_layers: { offloaded: 0, total: expect.any(Number) } });
    expect(vk.gpu_layers.total).toBeGreaterThan(0);
    expect(vk.warnings).toEqual([expect.stringMatching(/^device is gpu-vulkan, but the engine runs on the CPU \(0 of \d+ layers on a GPU\)/)]);

    const plain = await waitFor(() => slot(gw, 'plain'), { what: 'plain ready', until: (s) => s.state === 'ready', timeout: 90_000 });
    expect(plain).toMatchObject({ device: 'cpu', backend: 'cpu', gpu_layers: { offloaded: 0 }, warnings: [] });

    const rows = (await api(gw.url, '/api/activity?action=slot.backend_mismatch')).json.items as Array<{ target: string; message: string; details: Record<string, unknown> }>;
    expect(rows.map((r) => r.target)).toEqual(['vk']);
    expect(rows[0]!.details).toMatchObject({ severity: 'warn', device: 'gpu-vulkan', backend: 'cpu', gpu_layers: { offloaded: 0 } });
    expect(rows[0]!.message).toBe(vk.warnings[0]);

    const env = { SVC_API_URL: gw.url };
    const list = runSvc(['slot', 'list'], { home: home.home, env }).stdout;
    expect(list).toMatch(/^vk\s+llm\s+gpu-vulkan\s+builtin\s+\d+\s+ready\s+cpu!\s/m);
    // README's sample of `svc slot list` is this output: the same columns, a ready built-in cpu row shaped as this one.
    const cells = (line: string) => line.trim().split(/\s+/);
    const sample = /^svc slot list\n```\n\n```\n(?:slot .*\n)?([\s\S]*?)```/m.exec(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'))?.[1]?.trimEnd().split('\n') ?? [];
    const [header, ...listed] = list.trimEnd().split('\n');
    expect(cells(sample[0] ?? '')).toEqual(cells(header!));
    const shapeOf = (row: string) => cells(row).map((cell, i) => (/^\d+$/.test(cell) ? '<n>' : i === 0 || i === 8 ? '<name>' : cell)).join(' ');
    const plainRow = listed.find((row) => row.startsWith('plain '))!;
    expect(sample.slice(1).map(shapeOf)).toContain(shapeOf(plainRow));
    for (const row of sample.slice(1)) expect(cells(row)).toHaveLength(cells(header!).length);
    const status = runSvc(['slot', 'status', 'vk'], { home: home.home, env }).stdout;
    expect(status).toMatch(/^backend\s+cpu$/m);
    expect(status).toMatch(/^warning\s+device is gpu-vulkan, but the engine runs on the CPU/m);
  }, 180_000);
});
