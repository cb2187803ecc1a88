// `svc config validate|show|migrate|edit|reload|hardware` (the rest of the CLI: cli.test.ts), run as a user runs it: the built dist/bin/svc.js in a temp
// SVC_HOME, against a real gateway process where the command needs one.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, describe, expect, it } from 'vitest';
import { api, REPO_ROOT, runSvc, useTempGateways, type TempHome } from './helpers/gateway.js';
import { freePort } from './helpers/ports.js';


const SLOT = (name: string, port: number, device = 'cpu') => `[slot]\nname = "${name}"\nport = ${port}\ndevice = "${device}"\n`;
const DEVICE_PROBLEM = 'slots/chat.toml: slot.device: expected one of gpu-rocm, gpu-vulkan, gpu-cuda, cpu, npu; got "gpu"';

// Every test gets its own home and, where it needs one, its own gateway; both go afterwards.
const { home, gateway } = useTempGateways(afterEach);

/** A small $EDITOR: a shell script that runs `body` with the file to edit as $1. */
function editorScript(h: TempHome, name: string, body: string): string {
  const path = join(h.home, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('svc config validate', () => {
  it('prints every problem of every file in one run', () => {
    const h = home({
      'svc.toml': '[slots]\nidle_timeout_s = -1\n[memory.graph]\nllm_timeout_s = 5\n',
      'slots/chat.toml': SLOT('chat', 8081, 'gpu'),
      'slots/embed.toml': SLOT('embed', 9000),
      'slots/other.toml': SLOT('other', 8081),
      'upstreams.toml': '[upstreams.x]\nbase_url = "ftp://nope"\n',
      'providers.toml': 'this is not toml\n',
    });
    const result = runSvc(['config', 'validate'], { home: h.home });
    expect(result.status).toBe(4);
    const lines = result.stdout.split('\n');
    expect(lines).toEqual(expect.arrayContaining([
      'svc.toml: slots.idle_timeout_s: expected >= 0; got -1',
      'svc.toml: memory.graph.llm_timeout_s: expected >= 30; got 5',
      DEVICE_PROBLEM,
      'slots/embed.toml: slot.port: expected <= 8200; got 9000',
      'slots/other.toml: slot.port: port 8081 is already used by slots/chat.toml',
    ]));
    expect(lines.some((l) => l.startsWith('upstreams.toml: upstreams.x.base_url: '))).toBe(true);
    expect(lines.some((l) => l.startsWith('providers.toml: not valid TOML: line 1'))).toBe(true);
    const json = JSON.parse(runSvc(['config', 'validate', '--json'], { home: h.home }).stdout);
    expect(new Set(json.problems.map((p: { file: string }) => p.file))).toEqual(new Set(['svc.toml', 'slots/chat.toml', 'slots/embed.toml', 'slots/other.toml', 'upstreams.toml', 'providers.toml']));
    expect(json.problems.length).toBeGreaterThanOrEqual(7);
  });

  it('reports warnings without failing', () => {
    const h = home({ 'svc.toml': '[slots]\nidle_timeout = 5\n' });
    const result = runSvc(['config', 'validate'], { home: h.home });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('svc.toml: slots.idle_timeout: warning: unknown key, kept but not used (did you mean "idle_timeout_s"?)');
    expect(result.stdout).toContain('is valid');
  });
});

describe('svc config show', () => {
  it('--json gives every default with no svc.toml', () => {
    const h = home();
    const result = runSvc(['config', 'show', '--json'], { home: h.home });
    expect(result.status).toBe(0);
    const svc = JSON.parse(result.stdout);
    expect(svc.slots.idle_timeout_s).toBe(300);
    expect(svc.slots.port_range_start).toBe(8081);
    expect(svc.dispatcher.prefetch_timeout_s).toBe(8);
    expect(svc.activity.max_rows).toBe(50000);
    expect(svc.models.roots).toEqual([join(h.stateRoot, 'models')]);
    expect(svc.telemetry).toEqual({ enabled: false });
    expect(svc.updates).toEqual({ channel: 'stable' });
  });

  it('reflects the values in svc.toml and the environment', () => {
    const h = home({ 'svc.toml': '[slots]\nidle_timeout_s = 120\n[telemetry]\nchannel = "nightly"\n[activity]\nmax_rows = false\n' });
    const result = runSvc(['config', 'show', '--json'], { home: h.home, env: { SVC_MODEL_STORE: '/srv/models' } });
    expect(result.status).toBe(0);
    const svc = JSON.parse(result.stdout);
    expect(svc.slots.idle_timeout_s).toBe(120);
    expect(svc.slots.max_slots).toBe(0);
    // A file written before schema_version 3 names the channel under [telemetry]: it still counts.
    expect(svc.updates.channel).toBe('nightly');
    expect(svc.telemetry).toEqual({ enabled: false });
    expect(svc.activity.max_rows).toBeNull();
    expect(svc.models.store).toBe('/srv/models');

    const text = runSvc(['config', 'show'], { home: h.home });
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(`# ${join(h.configRoot, 'svc.toml')}, with every default filled in`);
    expect(text.stdout).toMatch(/^idle_timeout_s = 120$/m);
    expect(text.stdout).toMatch(/^evict_pressure_mb = 8192$/m);
  });

  it('prints TOML that reads back as the same configuration', () => {
    const h = home({ 'svc.toml': '[slots]\nmax_slots = 3\n[activity]\nmax_rows = false\n[memory.graph]\nllm_timeout_s = 600\n' });
    const before = runSvc(['config', 'show', '--json'], { home: h.home });
    const text = runSvc(['config', 'show'], { home: h.home });
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^max_rows = false$/m);
    h.write('svc.toml', text.stdout);
    const after = runSvc(['config', 'show', '--json'], { home: h.home });
    expect(after.status).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual(JSON.parse(before.stdout));
    expect(JSON.parse(after.stdout).activity.max_rows).toBeNull();
  });

  it('exits 4 with the problems when the configuration is invalid', () => {
    const h = home({ 'svc.toml': '[slots]\nidle_timeout_s = -1\n' });
    const result = runSvc(['config', 'show', '--json'], { home: h.home });
    expect(result.status).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('svc.toml: slots.idle_timeout_s: expected >= 0; got -1');
  });
});

describe('svc config migrate', () => {
  const V1 = '[memory.embedding]\nrerank_url = "http://x:1"\n';

  it('migrates a v1 svc.toml, keeps a backup of the original bytes and is idempotent', () => {
    const h = home({ 'svc.toml': V1 });
    const svcToml = join(h.configRoot, 'svc.toml');
    const original = readFileSync(svcToml);

    const first = runSvc(['config', 'migrate'], { home: h.home });
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('migrated svc.toml from schema_version 1 to 3');
    expect(first.stdout).toContain('memory.embedding.rerank_url -> memory.embedding.rerank_gateway_url');
    const migrated = readFileSync(svcToml, 'utf8');
    expect(migrated).toMatch(/^rerank_gateway_url = "http:\/\/x:1"$/m);
    expect(migrated).not.toContain('rerank_url =');
    expect(migrated).toMatch(/^schema_version = 3$/m);
    const backup = join(h.configRoot, 'svc.toml.v1.bak');
    expect(first.stdout).toContain(`backup: ${backup}`);
    expect(Buffer.compare(readFileSync(backup), original)).toBe(0);
    // The migrated file is valid and keeps the value.
    const shown = JSON.parse(runSvc(['config', 'show', '--json'], { home: h.home }).stdout);
    expect(shown.memory.embedding.rerank_gateway_url).toBe('http://x:1');
    expect(shown.meta.schema_version).toBe(3);

    const second = runSvc(['config', 'migrate'], { home: h.home });
    expect(second.status).toBe(0);
    expect(second.stdout).toContain('already at schema_version 3; nothing to do');
    expect(readFileSync(svcToml, 'utf8')).toBe(migrated);
    expect(readdirSync(h.configRoot).sort()).toEqual(['svc.toml', 'svc.toml.v1.bak']);
  });

  it('keeps the comments of the file npm start writes (its header above all), saying of any it could not place', () => {
    // scripts/start.mjs's starter svc.toml, byte for byte, then a comment of the user's own.
    const starter = readFileSync(join(REPO_ROOT, 'scripts/start.mjs'), 'utf8').match(/writeFileAtomic\(file, '([^']+)'\)/)![1]!.replace(/\\n/g, '\n');
    expect(starter).toMatch(/^# Written by `npm start`/);
    const h = home({ 'svc.toml': `${starter}\n[memory.embedding]\n# where the reranker was\nrerank_url = "http://x:1"\n` });
    const result = runSvc(['config', 'migrate'], { home: h.home });
    const migrated = readFileSync(join(h.configRoot, 'svc.toml'), 'utf8');
    expect([result.status, migrated.split('\n')[0]]).toEqual([0, starter.split('\n')[0]]);
    expect(parseToml(migrated)).toMatchObject({ meta: { schema_version: 3 }, memory: { engine: 'pgvector', embedding: { rerank_gateway_url: 'http://x:1' } } });
    expect(migrated).not.toContain('where the reranker was'); // on a renamed key: the backup has it
    expect(result.stdout).toContain('1 comment line(s) stood on keys the migration renamed or removed: the backup has them');
  });

  it('moves a v2 file\'s [telemetry].channel to [updates].channel and keeps [telemetry].enabled', () => {
    const V2 = '[meta]\nschema_version = 2\n\n[telemetry]\nenabled = true\nchannel = "nightly"\n';
    const h = home({ 'svc.toml': V2 });
    const svcToml = join(h.configRoot, 'svc.toml');
    // Before the rewrite the old spelling already counts, with a warning that names the move.
    const validate = runSvc(['config', 'validate'], { home: h.home });
    expect(validate.status).toBe(0);
    expect(validate.stdout).toContain('run `svc config migrate` to update it (telemetry.channel -> updates.channel)');
    expect(JSON.parse(runSvc(['config', 'show', '--json'], { home: h.home }).stdout).updates.channel).toBe('nightly');

    const first = runSvc(['config', 'migrate'], { home: h.home });
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('migrated svc.toml from schema_version 2 to 3');
    expect(first.stdout).toContain('telemetry.channel -> updates.channel');
    const migrated = readFileSync(svcToml, 'utf8');
    expect(parseToml(migrated)).toEqual({ meta: { schema_version: 3 }, telemetry: { enabled: true }, updates: { channel: 'nightly' } });
    expect(readFileSync(join(h.configRoot, 'svc.toml.v2.bak'), 'utf8')).toBe(V2);
    const shown = JSON.parse(runSvc(['config', 'show', '--json'], { home: h.home }).stdout);
    expect(shown.updates.channel).toBe('nightly');
    expect(shown.telemetry).toEqual({ enabled: true });
    const revalidated = runSvc(['config', 'validate'], { home: h.home });
    expect(revalidated.status).toBe(0);
    expect(revalidated.stdout).not.toContain('svc config migrate');

    const second = runSvc(['config', 'migrate'], { home: h.home });
    expect(second.stdout).toContain('already at schema_version 3; nothing to do');
    expect(readFileSync(svcToml, 'utf8')).toBe(migrated);
  });

  it('--dry-run shows the change and writes nothing', () => {
    const h = home({ 'svc.toml': V1 });
    const result = runSvc(['config', 'migrate', '--dry-run'], { home: h.home });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('would migrate svc.toml from schema_version 1 to 3');
    expect(result.stdout).toContain('memory.embedding.rerank_url -> memory.embedding.rerank_gateway_url');
    expect(readFileSync(join(h.configRoot, 'svc.toml'), 'utf8')).toBe(V1);
    expect(readdirSync(h.configRoot)).toEqual(['svc.toml']);
  });

  it('--json reports what it did', () => {
    const h = home({ 'svc.toml': V1 });
    const result = runSvc(['config', 'migrate', '--json'], { home: h.home });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      migrated: true,
      from: 1,
      to: 3,
      changes: ['memory.embedding.rerank_url -> memory.embedding.rerank_gateway_url'],
      backup: join(h.configRoot, 'svc.toml.v1.bak'),
    });
    expect(JSON.parse(runSvc(['config', 'migrate', '--json'], { home: h.home }).stdout)).toMatchObject({ migrated: false });
  });

  it.each([['4', 'expected <= 3; got 4'], ['"two"', 'expected a number; got "two"']])('refuses schema_version = %s, which this svc does not know', (version, message) => {
    const text = `[meta]\nschema_version = ${version}\n`;
    const h = home({ 'svc.toml': text });
    const result = runSvc(['config', 'migrate'], { home: h.home });
    expect(result.status).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`svc.toml: meta.schema_version: ${message}`);
    expect(readFileSync(join(h.configRoot, 'svc.toml'), 'utf8')).toBe(text);
    expect(readdirSync(h.configRoot)).toEqual(['svc.toml']);
  });

  it('says there is nothing to migrate without an svc.toml', () => {
    const h = home();
    const result = runSvc(['config', 'migrate'], { home: h.home });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('nothing to migrate');
    expect(existsSync(join(h.configRoot, 'svc.toml'))).toBe(false);
  });
});

describe('svc config edit', () => {
  const ORIGINAL = '[slots]\nidle_timeout_s = 100\n';

  it('saves a valid edit', () => {
    const h = home({ 'svc.toml': ORIGINAL });
    const editor = editorScript(h, 'edit.sh', 'printf \'[slots]\\nidle_timeout_s = 42\\n\' > "$1"');
    const result = runSvc(['config', 'edit'], { home: h.home, env: { EDITOR: editor, VISUAL: '', TMPDIR: h.home } });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('svc.toml saved');
    expect(readFileSync(join(h.configRoot, 'svc.toml'), 'utf8')).toBe('[slots]\nidle_timeout_s = 42\n');
    expect(JSON.parse(runSvc(['config', 'show', '--json'], { home: h.home }).stdout).slots.idle_timeout_s).toBe(42);
    // The draft is cleaned up.
    expect(readdirSync(h.home).filter((n) => n.startsWith('svc-edit-'))).toEqual([]);
  });

  it('refuses an invalid edit, leaves the file byte-for-byte unchanged and says where the edit is kept', () => {
    const h = home({ 'svc.toml': ORIGINAL });
    const target = join(h.configRoot, 'svc.toml');
    const before = readFileSync(target);
    const editor = editorScript(h, 'bad.sh', 'printf \'[slots]\\nidle_timeout_s = -1\\n\' > "$1"');
    const result = runSvc(['config', 'edit'], { home: h.home, env: { EDITOR: editor, TMPDIR: h.home } });
    expect(result.status).toBe(4);
    expect(`${result.stdout}${result.stderr}`).toContain('svc.toml: slots.idle_timeout_s: expected >= 0; got -1');
    expect(Buffer.compare(readFileSync(target), before)).toBe(0);
    const kept = /your edit is kept in (\S+)/.exec(result.stderr)?.[1];
    expect(kept).toBeDefined();
    expect(kept!.startsWith(h.home)).toBe(true);
    expect(readFileSync(kept!, 'utf8')).toBe('[slots]\nidle_timeout_s = -1\n');
  });

  it('edits a slot file and creates it when missing', () => {
    const h = home();
    const editor = editorScript(h, 'slot.sh', `cat > "$1" <<'EOF'\n${SLOT('chat', 8082)}EOF`);
    const result = runSvc(['config', 'edit', 'slots/chat.toml'], { home: h.home, env: { EDITOR: editor, TMPDIR: h.home } });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('slots/chat.toml saved');
    expect(readFileSync(join(h.configRoot, 'slots/chat.toml'), 'utf8')).toBe(SLOT('chat', 8082));
  });

  it('says "no changes" when the editor changes nothing', () => {
    const h = home({ 'svc.toml': ORIGINAL });
    const editor = editorScript(h, 'noop.sh', 'true');
    const result = runSvc(['config', 'edit'], { home: h.home, env: { EDITOR: editor, TMPDIR: h.home } });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('svc.toml: no changes');
    expect(readFileSync(join(h.configRoot, 'svc.toml'), 'utf8')).toBe(ORIGINAL);
  });

  it('does not start from an empty draft when the file cannot be read', () => {
    const h = home({ 'slots/chat.toml/inside': 'x' });
    const marker = join(h.home, 'editor-ran');
    const editor = editorScript(h, 'edit.sh', `touch "${marker}"; echo '[slot]' > "$1"`);
    const result = runSvc(['config', 'edit', 'slots/chat.toml'], { home: h.home, env: { EDITOR: editor, TMPDIR: h.home } });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`cannot read ${join(h.configRoot, 'slots/chat.toml')} (EISDIR)`);
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(join(h.configRoot, 'slots/chat.toml/inside'), 'utf8')).toBe('x');
  });

  it('without $EDITOR and without a terminal, refuses (exit 2) naming $EDITOR and the file, instead of starting vi', () => {
    const h = home({ 'svc.toml': ORIGINAL });
    // A vi first on PATH that says whether it ran: with no terminal, the fallback editor cannot be used.
    const [marker, bin] = [join(h.home, 'vi-ran'), join(h.home, 'bin')];
    mkdirSync(bin);
    writeFileSync(join(bin, 'vi'), `#!/bin/sh\ntouch "${marker}"\n`, { mode: 0o755 });
    const result = runSvc(['config', 'edit'], { home: h.home, env: { EDITOR: '', VISUAL: '', PATH: `${bin}:${process.env.PATH}`, TMPDIR: h.home } });
    expect([result.status, existsSync(marker)]).toEqual([2, false]);
    expect(result.stderr).toBe(`svc: svc config edit needs an editor: no $EDITOR (or $VISUAL) is set and this is not a terminal, so none can be started. Set EDITOR to an editor command, or edit ${join(h.configRoot, 'svc.toml')} directly and check it with \`svc config validate\`\n`);
    expect([readFileSync(join(h.configRoot, 'svc.toml'), 'utf8'), readdirSync(h.home).filter((n) => n.startsWith('svc-edit-'))]).toEqual([ORIGINAL, []]);
  });

  it('leaves the file unchanged when the editor fails', () => {
    const h = home({ 'svc.toml': ORIGINAL });
    const editor = editorScript(h, 'fail.sh', 'echo "[slots]" > "$1"; exit 3');
    const result = runSvc(['config', 'edit'], { home: h.home, env: { EDITOR: editor, TMPDIR: h.home } });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('exited with 3');
    expect(readFileSync(join(h.configRoot, 'svc.toml'), 'utf8')).toBe(ORIGINAL);
  });

  it.each(['../../etc/passwd', 'slots/../svc.toml', '/etc/passwd', 'hardware.json', 'slots/Bad.toml'])('refuses to edit %s (exit 2)', (file) => {
    const h = home({ 'svc.toml': ORIGINAL });
    const marker = join(h.home, 'editor-ran');
    const editor = editorScript(h, 'edit.sh', `touch "${marker}"`);
    const result = runSvc(['config', 'edit', file], { home: h.home, env: { EDITOR: editor, TMPDIR: h.home } });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`cannot edit "${file}"`);
    expect(existsSync(marker)).toBe(false);
  });

  it('uses $VISUAL when $EDITOR is unset, and $EDITOR first when both are set', () => {
    const h = home({ 'svc.toml': ORIGINAL });
    const visual = editorScript(h, 'visual.sh', 'printf \'[slots]\\nidle_timeout_s = 7\\n\' > "$1"');
    const editor = editorScript(h, 'editor.sh', 'printf \'[slots]\\nidle_timeout_s = 9\\n\' > "$1"');
    const target = join(h.configRoot, 'svc.toml');

    const viaVisual = runSvc(['config', 'edit'], { home: h.home, env: { EDITOR: '', VISUAL: visual, TMPDIR: h.home } });
    expect(viaVisual.status).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('[slots]\nidle_timeout_s = 7\n');

    const viaEditor = runSvc(['config', 'edit'], { home: h.home, env: { EDITOR: editor, VISUAL: visual, TMPDIR: h.home } });
    expect(viaEditor.status).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('[slots]\nidle_timeout_s = 9\n');
  });
});

describe('svc config reload', () => {
  it('refuses an invalid file, keeps the running config, and applies the fixed one', async () => {
    const h = home({ 'slots/chat.toml': SLOT('chat', 8081) });
    const g = await gateway(h);
    const env = { SVC_API_URL: g.url };

    h.write('slots/embed.toml', SLOT('embed', 8082, 'gpu'));
    const refused = runSvc(['config', 'reload'], { home: h.home, env });
    expect(refused.status).toBe(4);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('config.invalid');
    expect(refused.stderr).toContain('slots/embed.toml: slot.device: expected one of gpu-rocm, gpu-vulkan, gpu-cuda, cpu, npu; got "gpu"');

    const still = await api(g.url, '/api/status');
    expect(still.status).toBe(200);
    expect(still.json.slots.slots.map((s: { name: string }) => s.name)).toEqual(['chat']);

    h.write('slots/embed.toml', SLOT('embed', 8082));
    const applied = runSvc(['config', 'reload'], { home: h.home, env });
    expect(applied.stderr).toBe('');
    expect(applied.status).toBe(0);
    expect(applied.stdout).toContain('configuration reloaded (2 slot(s))');

    const status = JSON.parse(runSvc(['status', '--json'], { home: h.home, env }).stdout);
    expect(status.slots.slots.map((s: { name: string }) => s.name).sort()).toEqual(['chat', 'embed']);
    expect(status.slots.slots.find((s: { name: string }) => s.name === 'embed')).toMatchObject({ device: 'cpu', port: 8082 });

    const json = JSON.parse(runSvc(['config', 'reload', '--json'], { home: h.home, env }).stdout);
    expect(json).toMatchObject({ reloaded: true, slots: ['chat', 'embed'] });
  }, 60_000);

  it('exits 3 with one line when no server is running', async () => {
    const h = home();
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = runSvc(['config', 'reload'], { home: h.home, env: { SVC_API_URL: url } });
    expect(result.status).toBe(3);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(url);
  });
});

describe('svc config hardware', () => {
  it('--json returns the host the server sees', async () => {
    const h = home();
    const g = await gateway(h);
    const result = runSvc(['config', 'hardware', '--json'], { home: h.home, env: { SVC_API_URL: g.url } });
    expect(result.status).toBe(0);
    const hardware = JSON.parse(result.stdout);
    expect(hardware.host.cpu_count).toBeGreaterThan(0);
    expect(hardware.host.mem_total_mb).toBeGreaterThan(0);
    expect(hardware.probe).toBeNull();

    const text = runSvc(['config', 'hardware'], { home: h.home, env: { SVC_API_URL: g.url } });
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^cpu\\s+${hardware.host.cpu_count} x `, 'm'));
  }, 60_000);
});
