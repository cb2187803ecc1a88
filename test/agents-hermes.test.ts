// hermes end to end: a real gateway (the built-in engine's chat and embedding slots on the
// tiny model, memory on the embedded pgvector engine) provisions hermes with the stand-in
// runtime (test/fixtures/hermes-runtime.mjs; the real one needs Python's package index),
// through the CLI. The stand-in is told per run which of its commands fails (a control file).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HERMES_PHASES } from '../src/agents/hermes/types.js';
import { renderAgentUnit } from '../src/agents/hermes/unit.js';
import { findProgram } from '../src/deploy/systemd.js';
import { api, type Gateway, REPO_ROOT, runSvcAsync, startGateway, type TempHome, tempHome } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';

const RUNTIME = join(REPO_ROOT, 'test/fixtures/hermes-runtime.mjs');
let home: TempHome;
let gw: Gateway;
let control: string;
const agentDir = () => join(home.stateRoot, 'agents/hermes');
const hermesHome = () => join(agentDir(), 'data');
const tell = (value: { fail?: string[]; version?: string }) => writeFileSync(control, JSON.stringify(value));
const svc = (args: string[]) => runSvcAsync(['agent', ...args], { home: home.home, env: { SVC_API_URL: gw.url } });
const provision = async () => (await api(gw.url, '/api/agents/hermes/provision')).json;

/** Every file under a folder with its mode and content: what a dry run must leave as it was. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else out[relative(dir, path)] = `${(statSync(path).mode & 0o777).toString(8)} ${statSync(path).mtimeMs} ${readFileSync(path, 'utf8')}`;
    }
  };
  walk(dir);
  return out;
}

beforeAll(async () => {
  home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin' }, { name: 'embed', provider: 'builtin', type: 'embedding' }]);
  home.write('svc.toml', '[memory]\nengine = "pgvector"\n');
  control = join(home.home, 'hermes-control.json');
  tell({});
  gw = await startGateway(home.home, { env: { SVC_HERMES_RUNTIME: RUNTIME, HERMES_STANDIN_CONTROL: control } });
  // The first embedding (the database's initdb, the model load) and the first chat load happen
  // here, not inside the CLI's run (runSvcAsync gives a command 60 s).
  const warm = await api(gw.url, '/api/memory/add', { method: 'POST', body: { text: 'warm-up' } });
  expect(warm.status, warm.text).toBe(200);
  const chat = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 } });
  expect(chat.status, chat.text).toBe(200);
}, 240_000);

afterAll(async () => {
  await gw?.stop();
});

describe('svc agent bootstrap hermes (stand-in runtime)', () => {
  it('--dry-run on a fresh home writes nothing at all', async () => {
    const run = await svc(['bootstrap', 'hermes', '--dry-run', '--json']);
    expect(run.status, run.stderr).toBe(0);
    const answer = JSON.parse(run.stdout);
    expect(answer.dry_run).toBe(true);
    expect(Object.keys(answer.provision.phases)).toEqual([...HERMES_PHASES]);
    expect(answer.provision.phases.config_write.details.would_write).toEqual([join(hermesHome(), 'config.yaml')]);
    expect(existsSync(agentDir())).toBe(false);
  }, 60_000);

  it('--verbose after the command prints each phase\'s details (the global --verbose does not take it away)', async () => {
    const run = await svc(['bootstrap', 'hermes', '--dry-run', '--verbose']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^config_write: \{.*"would_write":\[/m);
    expect(existsSync(agentDir())).toBe(false);
  }, 60_000);

  it('a full bootstrap: every phase ok (voice_wire skips: no voice slot), provision.json with every key', async () => {
    const run = await svc(['bootstrap', 'hermes']);
    expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
    const record = await provision();
    expect(Object.keys(record).sort()).toEqual(['agent_id', 'completed_at', 'errors', 'hermes_home', 'hermes_version', 'phases', 'schema_version', 'started_at', 'svc_version', 'venv'].sort());
    expect(record).toMatchObject({ schema_version: 1, hermes_version: '0.9.0', hermes_home: hermesHome(), venv: join(agentDir(), 'venv'), agent_id: 'hermes-agent', errors: [] });
    expect(Object.keys(record.phases)).toEqual([...HERMES_PHASES]);
    for (const phase of HERMES_PHASES) {
      expect(record.phases[phase].at, phase).toMatch(/^\d{4}-/);
      if (phase === 'voice_wire') expect(record.phases[phase]).toMatchObject({ status: 'skip', reason: 'no transcription or tts slot is enabled' });
      else expect(record.phases[phase].status, `${phase}: ${record.phases[phase].reason}`).toBe('ok');
    }
    expect(record.phases.config_write.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(record.phases.model_automap.details.model).toBe('chat');
    expect(record.phases.smoke_tests.details.model).toBe('chat');
    expect(statSync(join(hermesHome(), '.env')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(hermesHome(), 'config.yaml'), 'utf8')).toContain(`base_url: ${gw.url}/v1`);
    expect(JSON.parse(readFileSync(join(hermesHome(), 'mcp.json'), 'utf8')).mcpServers['svc-admin'].url).toBe(`${gw.url}/mcp/admin/mcp`);
    expect(readdirSync(join(hermesHome(), 'personas')).sort()).toEqual(['active.txt', 'coder.toml', 'hermes.toml', 'svc-brain.toml']);
    expect(readdirSync(join(agentDir(), 'provision/provision-logs')).sort()).toEqual(HERMES_PHASES.map((p) => `${p}.log`).sort());
    expect(readFileSync(join(agentDir(), 'svc-agent@hermes.service'), 'utf8')).toContain(`ExecStart=${RUNTIME} gateway run`);
    // The identity card is in memory: svc agent peers lists it.
    const peers = await svc(['peers']);
    expect(peers.status, peers.stderr).toBe(0);
    expect(peers.stdout).toContain('hermes-agent');
    // A rerun writes nothing it wrote already.
    const again = await svc(['reprovision', '--json']);
    expect(again.status, again.stderr).toBe(0);
    const phases = JSON.parse(again.stdout).provision.phases;
    for (const phase of ['home_init', 'install_artifacts', 'config_write', 'mcp_wire', 'context_link', 'model_automap', 'gateway_secrets_wire']) expect(phases[phase], phase).toMatchObject({ status: 'skip', reason: 'unchanged' });
    expect(phases.namespace_register).toMatchObject({ status: 'skip', reason: 'registered' });
  }, 180_000);

  it('--dry-run after a bootstrap leaves the tree as it was, even with a change pending', async () => {
    const before = tree(agentDir());
    chmodSync(join(hermesHome(), 'config.yaml'), 0o666);
    const changed = tree(agentDir());
    const run = await svc(['bootstrap', 'hermes', '--dry-run', '--repair', '--json']);
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).provision.phases.ownership_reconcile.status).toBe('repair_needed');
    expect(tree(agentDir())).toEqual(changed);
    chmodSync(join(hermesHome(), 'config.yaml'), 0o644);
    expect(Object.keys(before).length).toBeGreaterThan(20);
  }, 60_000);

  it('a phase that fails, its log, then --repair; drift is repair_needed until --repair', async () => {
    tell({ fail: ['config-check'] });
    const failed = await svc(['bootstrap', 'hermes']);
    expect(failed.status).toBe(1);
    expect(failed.stdout).toMatch(/config_write\s+fail\s+hermes config check failed \(exit 3\)/);
    const record = await provision();
    expect(record.errors).toEqual([{ phase: 'config_write', reason: expect.stringContaining('told to fail "config-check"') }]);
    expect(record.phases.smoke_tests.status).toBe('ok'); // not fatal: the later phases ran
    const log = await svc(['log', 'hermes', '--phase', 'config_write']);
    expect(log.stdout).toContain('run: hermes config check');
    expect(log.stdout).toContain('told to fail');

    tell({});
    chmodSync(join(hermesHome(), '.env'), 0o644);
    const drifted = await svc(['reprovision', '--json']);
    expect(drifted.status).toBe(0);
    const phases = JSON.parse(drifted.stdout).provision.phases;
    expect(phases.config_write.status).toBe('ok');
    expect(phases.ownership_reconcile).toMatchObject({ status: 'repair_needed', reason: '1 path(s) drifted: run with --repair' });
    // env-check refuses an .env others can read, until the repair
    chmodSync(join(hermesHome(), '.env'), 0o644);
    const repaired = await svc(['reprovision', '--repair', '--json']);
    expect(repaired.status, repaired.stdout).toBe(0);
    const after = JSON.parse(repaired.stdout).provision.phases;
    expect(after.ownership_reconcile).toMatchObject({ status: 'ok', details: { fixed: [expect.stringContaining('.env: mode 644, wants 600')] } });
    expect(after.config_write.status).toBe('ok'); // --repair rewrites instead of skipping
    expect(statSync(join(hermesHome(), '.env')).mode & 0o777).toBe(0o600);
  }, 180_000);

  it('a fatal failure skips the later phases but ownership_reconcile', async () => {
    tell({ fail: ['version'] });
    const run = await svc(['bootstrap', 'hermes', '--json']);
    expect(run.status).toBe(1);
    const phases = JSON.parse(run.stdout).provision.phases;
    expect(phases.install).toMatchObject({ status: 'fail', fatal: true });
    expect(phases.config_write).toMatchObject({ status: 'skip', reason: 'not run: install failed' });
    expect(phases.ownership_reconcile.status).toBe('ok');
    tell({});
  }, 60_000);

  it('--skip-phase (repeatable) and an unknown phase', async () => {
    const run = await svc(['bootstrap', 'hermes', '--skip-phase', 'smoke_tests', '--skip-phase', 'namespace_register', '--json']);
    expect(run.status, run.stderr).toBe(0);
    const phases = JSON.parse(run.stdout).provision.phases;
    expect(phases.smoke_tests).toMatchObject({ status: 'skip', reason: 'skipped by --skip-phase' });
    expect(phases.namespace_register).toMatchObject({ status: 'skip', reason: 'skipped by --skip-phase' });
    expect(phases.self_report.status).toBe('ok');
    const bad = await api(gw.url, '/api/agents/hermes/provision', { method: 'POST', body: { skip_phases: ['smoke_test'] } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('request.invalid');
    const pi = await api(gw.url, '/api/agents/pi/provision', { method: 'POST', body: {} });
    expect(pi.json.error.code).toBe('agent.unknown');
  }, 120_000);

  it('--offline with the runtime in place runs every phase', async () => {
    const run = await svc(['bootstrap', 'hermes', '--offline', '--json']);
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).provision.errors).toEqual([]);
  }, 120_000);
});

describe('hermes without its runtime (no SVC_HERMES_RUNTIME, no venv)', () => {
  it('--offline fails install with what to install; an unreachable package index says so', async () => {
    const bare = tempHome({ 'svc.toml': '[memory]\nenabled = false\n' });
    const other = await startGateway(bare.home, { env: { PIP_INDEX_URL: 'http://127.0.0.1:9/simple/' } });
    try {
      const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
      const offline = await runSvcAsync(['agent', 'bootstrap', 'hermes', '--offline', '--json'], { home: bare.home, env: { SVC_API_URL: other.url } });
      expect(offline.status).toBe(1);
      const phases = JSON.parse(offline.stdout).provision.phases;
      if (python.status !== 0 || !/Python 3\.(1[1-9]|[2-9]\d)/.test(python.stdout)) {
        expect(phases.preflight).toMatchObject({ status: 'fail', fatal: true, reason: expect.stringContaining('install python3 and python3-venv') });
        return;
      }
      expect(phases.install).toMatchObject({ status: 'fail', fatal: true, reason: expect.stringMatching(/--offline.*pip install hermes-agent.*SVC_HERMES_RUNTIME/) });
      expect(phases.smoke_tests).toMatchObject({ status: 'skip', reason: 'not run: install failed' });
      const online = await runSvcAsync(['agent', 'bootstrap', 'hermes', '--json'], { home: bare.home, env: { SVC_API_URL: other.url } });
      expect(JSON.parse(online.stdout).provision.phases.install.reason).toMatch(/package index \(http:\/\/127\.0\.0\.1:9\/simple\/\) is unreachable/);
    } finally {
      await other.stop();
      rmSync(bare.home, { recursive: true, force: true });
    }
  }, 120_000);
});

const analyze = findProgram('systemd-analyze');
if (!analyze && process.env.CI === 'true') throw new Error('systemd-analyze is not installed; CI must install systemd (.ci/run)');

describe.skipIf(!analyze)('the unit svc-agent@hermes.service', () => {
  it('passes systemd-analyze verify with nothing to say', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-agent-unit-'));
    const paths = { dataDir: join(dir, 'data'), stateDir: join(dir, 'provision'), installDir: dir };
    writeFileSync(join(dir, 'svc-agent@hermes.service'), renderAgentUnit({ agent: 'hermes', runtime: RUNTIME, paths, user: 'svc' }));
    const result = spawnSync(analyze!, ['verify', join(dir, 'svc-agent@hermes.service')], { encoding: 'utf8', env: { ...process.env, SYSTEMD_UNIT_PATH: `${dir}:` } });
    expect({ status: result.status, output: `${result.stdout}${result.stderr}`.trim() }).toEqual({ status: 0, output: '' });
  });
});
