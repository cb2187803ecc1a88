// install --switch with rollback, hermes failing. hermes is svc's only daemon agent, so the
// agents service here gets two real hermes drivers: the one installed first under the name
// "hermes-a" (its own home and runtime environment), then "hermes" with the stand-in runtime
// told to fail. The switch uninstalls hermes-a, hermes fails, hermes-a is put back at its
// version with its agent file. The chat the smoke test sends goes to the scripted upstream
// (a real OpenAI-compatible process): this test drives the service, not a gateway.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHermesDriver, type HermesLoans } from '../src/agents/hermes/driver.js';
import { AgentService } from '../src/agents/service.js';
import type { SvcPaths } from '../src/config/paths.js';
import { REPO_ROOT } from './helpers/gateway.js';
import { startScriptedUpstream, type ScriptedUpstream } from './helpers/scripted-upstream.js';

let upstream: ScriptedUpstream;
const root = mkdtempSync(join(tmpdir(), 'svc-switch-'));
const paths = { configRoot: join(root, 'etc'), stateRoot: join(root, 'var') } as SvcPaths;
const events: Array<{ type: string }> = [];

const loans = (env: Record<string, string>): HermesLoans => ({
  models: async () => [{ id: 'chat', owned_by: 'svc', name: 'chat · tiny' }],
  mcpServers: async () => ({ 'svc-admin': `${upstream.url}/mcp/admin/mcp` }),
  memory: null,
  voiceSlots: () => ({ stt: null, tts: null }),
  env: { ...process.env, SVC_HERMES_RUNTIME: join(REPO_ROOT, 'test/fixtures/hermes-runtime.mjs'), ...env },
});

beforeAll(async () => {
  upstream = await startScriptedUpstream({ chat: { always: { content: 'ok' } } });
});
afterAll(() => upstream?.stop());

describe('install --switch to hermes, which fails', () => {
  it('rolls back to the daemon agent that was installed, at its version', async () => {
    const service = new AgentService({
      paths, publish: (e) => events.push(e), record: () => undefined,
      wiring: async () => ({ v1Url: `${upstream.url}/v1`, apiUrl: upstream.url, token: null, chatModels: ['chat'], svcVersion: 'test' }),
      unwire: async () => 0,
    });
    service.registerDriver({ ...createHermesDriver(() => loans({ HERMES_STANDIN_VERSION: '0.8.0' })), name: 'hermes-a' });
    service.registerDriver(createHermesDriver(() => loans({ HERMES_STANDIN_FAIL: 'config-check' })));

    const first = await service.install({ name: 'hermes-a', switch: false, offline: false, adopt: false, dry_run: false, repair: false, skip_phases: [] }, 'test');
    await service.jobs.settled(first.id);
    expect(service.jobs.get(first.id)).toMatchObject({ state: 'done', version: '0.8.0' });
    const fileBefore = readFileSync(join(paths.configRoot, 'agents/hermes-a.toml'), 'utf8');

    await expect(service.install({ name: 'hermes', switch: false, offline: false, adopt: false, dry_run: false, repair: false, skip_phases: [] }, 'test'))
      .rejects.toMatchObject({ code: 'agent.switch_required' });
    const job = await service.install({ name: 'hermes', switch: true, offline: false, adopt: false, dry_run: false, repair: false, skip_phases: [] }, 'test');
    await service.jobs.settled(job.id);
    const done = service.jobs.get(job.id);
    expect(done).toMatchObject({ state: 'failed', action: 'switch', replaced: 'hermes-a', error: { code: 'agent.install_failed' } });
    expect(done.error!.message).toContain('config_write: hermes config check failed');
    expect(done.steps.map((s) => s.step)).toContain('rollback');
    expect(done.steps.at(-1)!.message).toBe('hermes-a is back');
    // hermes-a is back: its file as it was, its provision.json complete, its version.
    expect(readFileSync(join(paths.configRoot, 'agents/hermes-a.toml'), 'utf8')).toBe(fileBefore);
    expect((await service.view('hermes-a'))).toMatchObject({ status: 'installed', version: '0.8.0' });
    expect(existsSync(join(paths.configRoot, 'agents/hermes.toml'))).toBe(false);
    const record = JSON.parse(readFileSync(join(paths.stateRoot, 'agents/hermes-a/provision/provision.json'), 'utf8'));
    expect(record.errors).toEqual([]);
    expect((await upstream.requests()).length).toBeGreaterThanOrEqual(2); // the smoke chats of both hermes-a installs
  }, 120_000);
});
