import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './load.js';
import { resolvePaths } from './paths.js';
import { formatProblem } from './problems.js';

function home(files: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), 'svc-load-'));
  const paths = resolvePaths({ env: { SVC_HOME: root }, isRoot: false, homeDir: root, exists: () => false });
  for (const [rel, text] of Object.entries(files)) {
    const target = rel.startsWith('state:') ? join(paths.stateRoot, rel.slice(6)) : join(paths.configRoot, rel);
    mkdirSync(join(target, '..'), { recursive: true });
    writeFileSync(target, text);
  }
  return paths;
}

async function problemsOf(files: Record<string, string>, env: NodeJS.ProcessEnv = {}) {
  const outcome = await loadConfig(home(files), env);
  return outcome.problems.map(formatProblem);
}

const slot = (name: string, body = '', port = 8081) => `[slot]\nname = "${name}"\nport = ${port}\n${body}\n`;

describe('loadConfig', () => {
  it('treats a missing home as all defaults', async () => {
    const outcome = await loadConfig(home({}), {});
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.config.svc.slots.idle_timeout_s).toBe(300);
    expect(outcome.config.svc.activity.max_rows).toBe(50000);
    expect(outcome.config.svc.models.roots).toEqual([outcome.config.paths.defaultModelsDir]);
    expect(outcome.config.slots).toEqual([]);
    expect(Object.isFrozen(outcome.config.svc.slots)).toBe(true);
  });

  it('accepts an empty svc.toml', async () => {
    expect(await problemsOf({ 'svc.toml': '' })).toEqual([]);
  });

  it('reads the update channel an older file names under [telemetry], and says to migrate (issue 23)', async () => {
    for (const text of ['[telemetry]\nchannel = "nightly"\n', '[meta]\nschema_version = 2\n[telemetry]\nchannel = "nightly"\nenabled = true\n']) {
      const outcome = await loadConfig(home({ 'svc.toml': text }), {});
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) return;
      expect(outcome.config.svc.updates.channel).toBe('nightly');
      expect(outcome.config.svc.telemetry).not.toHaveProperty('channel');
      expect(outcome.problems.map(formatProblem)).toEqual([
        expect.stringMatching(/^svc\.toml: meta\.schema_version: warning: written for schema_version [12]; run `svc config migrate` to update it \(telemetry\.channel -> updates\.channel\)$/),
      ]);
    }
    // Written by this version: no warning, and the old key is nothing svc reads.
    const current = await loadConfig(home({ 'svc.toml': '[meta]\nschema_version = 3\n[updates]\nchannel = "nightly"\n' }), {});
    expect(current.ok && current.config.svc.updates.channel).toBe('nightly');
    expect(current.problems).toEqual([]);
  });

  it('names the file, the field path and what was expected', async () => {
    const problems = await problemsOf({ 'slots/chat.toml': slot('chat', 'device = "gpu"') });
    expect(problems).toEqual(['slots/chat.toml: slot.device: expected one of gpu-rocm, gpu-vulkan, gpu-cuda, cpu, npu; got "gpu"']);
  });

  it('reports every problem of every file in one pass', async () => {
    const problems = await problemsOf({
      'svc.toml': '[slots]\nidle_timeout_s = -1\nport_range_start = 8090\nport_range_end = 8085\n[activity]\nmax_rows = 5\n',
      'slots/a.toml': slot('a', 'type = "llm"\ndefault_voice = "af_bella"\nworkers = 0'),
      'slots/b.toml': slot('b', '', 8081),
      'slots/c.toml': slot('c', '', 9000),
      'upstreams.toml': '[upstreams.x]\nbase_url = "ftp://nope"\n',
    });
    expect(problems).toEqual(expect.arrayContaining([
      'svc.toml: slots.idle_timeout_s: expected >= 0; got -1',
      'svc.toml: slots.port_range_end: expected >= slots.port_range_start (8090); got 8085',
      'svc.toml: activity.max_rows: expected >= 100; got 5',
      'slots/a.toml: slot.workers: expected >= 1; got 0',
      'slots/a.toml: slot.default_voice: only allowed on tts slots; this slot\'s type is "llm"',
      'slots/b.toml: slot.port: port 8081 is already used by slots/a.toml',
      'slots/c.toml: slot.port: expected <= 8200; got 9000',
      'upstreams.toml: upstreams.x.base_url: expected an http:// or https:// URL; got "ftp://nope"',
    ]));
    expect(problems).toHaveLength(8);
  });

  it('enforces the slot name grammar and the file name', async () => {
    expect(await problemsOf({ 'slots/chat.toml': slot('other') })).toEqual([
      'slots/chat.toml: slot.name: expected "chat" (the file name); got "other"',
    ]);
    const bad = await problemsOf({ 'slots/Bad.toml': slot('Bad') });
    expect(bad).toContain('slots/Bad.toml: the file name must be a slot name (lowercase letters, digits, "-" and "_", starting with a letter or digit, at most 32 characters)');
    expect(bad.some((p) => p.startsWith('slots/Bad.toml: slot.name: expected a slot name'))).toBe(true);
  });

  it('checks [server].env keys and values and extraction_slot grammar', async () => {
    const problems = await problemsOf({
      'slots/chat.toml': slot('chat', '[server]\nenv = { "1BAD" = "x", GOOD = "a\\nb" }'),
      'svc.toml': '[memory.graph]\nextraction_slot = "Not Valid"\n',
    });
    expect(problems).toEqual(expect.arrayContaining([
      'slots/chat.toml: server.env.1BAD: invalid key: expected an environment variable name matching [A-Za-z_][A-Za-z0-9_]*; got "1BAD"',
      'slots/chat.toml: server.env.GOOD: expected a value without newlines; got "a\\nb"',
      expect.stringMatching(/^svc\.toml: memory\.graph\.extraction_slot: expected a slot name/),
    ]));
  });

  it('keeps unknown keys as warnings with a suggestion', async () => {
    const outcome = await loadConfig(home({ 'svc.toml': '[slots]\nidle_timeout = 5\n', 'slots/chat.toml': slot('chat', 'future_key = 1') }), {});
    expect(outcome.ok).toBe(true);
    expect(outcome.problems.map(formatProblem)).toEqual([
      'svc.toml: slots.idle_timeout: warning: unknown key, kept but not used (did you mean "idle_timeout_s"?)',
      'slots/chat.toml: slot.future_key: warning: unknown key, kept but not used',
    ]);
  });

  it('accepts rope_freq_base with a deprecation warning', async () => {
    const outcome = await loadConfig(home({ 'slots/chat.toml': slot('chat', '[model]\nrope_freq_base = 1000000.0') }), {});
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.config.slots[0]?.config.model.rope_freq_base).toBe(1000000);
    expect(outcome.problems.map(formatProblem)).toEqual([
      'slots/chat.toml: model.rope_freq_base: warning: deprecated and ignored at launch; pass --rope-freq-base in [server].extra_args instead',
    ]);
  });

  it('refuses [server].extra_args that cannot be split into arguments', async () => {
    expect(await problemsOf({ 'slots/chat.toml': slot('chat', '[server]\nextra_args = "--alias \'oops"') })).toEqual([
      'slots/chat.toml: server.extra_args: cannot split into arguments: unbalanced single quote',
    ]);
  });

  it('takes [engines] command lines whose program is absolute or a bare name, with balanced quotes', async () => {
    expect(await problemsOf({ 'svc.toml': '[engines]\nkokoro = "/opt/kokoro/kokoro_server --quiet"\nmoonshine = "python3 \'/opt/moon shine/server.py\'"\nflm = ""\n' })).toEqual([]);
    const problems = await problemsOf({ 'svc.toml': '[engines]\nkokoro = "./kokoro_server"\ncomfyui = "python3 \'main.py"\n' });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^svc.toml: engines.kokoro: expected a command line whose program is an absolute path or a name on PATH/);
    expect(problems[1]).toMatch(/^svc.toml: engines.comfyui: /);
  });

  it('refuses a slot profile that does not exist and a profile that redefines a seed', async () => {
    expect(await problemsOf({
      'slots/chat.toml': slot('chat', 'profile = "fastest"'),
      'slots/ok.toml': slot('ok', 'profile = "mine"', 8082),
      'profiles.toml': '[profiles.mine]\nimage = ""\ndevice_class = "cpu"\n[profiles.rocm]\nimage = "x"\ndevice_class = "gpu"\n',
    })).toEqual([
      'profiles.toml: profiles.rocm: "rocm" is a seed profile and cannot be redefined; clone it under a new name (cloned_from = "rocm")',
      'slots/chat.toml: slot.profile: expected a seed profile or one from profiles.toml; got "fastest"',
    ]);
  });

  it('reports TOML syntax errors with line and column', async () => {
    const [problem] = await problemsOf({ 'svc.toml': '[slots]\nmax_slots = = 3\n' });
    expect(problem).toMatch(/^svc\.toml: not valid TOML: line 2, column \d+: /);
  });

  it('applies and validates SVC_* environment overrides', async () => {
    const outcome = await loadConfig(home({}), { SVC_MODEL_STORE: '/models', SVC_ACTIVITY_RETENTION_DAYS: '7', SVC_AUTH_ENABLED: '1' });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.config.svc.models.store).toBe('/models');
    expect(outcome.config.svc.activity.retention_days).toBe(7);
    expect(outcome.config.env.authEnabled).toBe(true);
    expect(await problemsOf({}, { SVC_ACTIVITY_RETENTION_DAYS: '0', SVC_PORT: 'http' })).toEqual([
      'environment: SVC_PORT: expected a port number 1-65535; got "http"',
      'environment: SVC_ACTIVITY_RETENTION_DAYS: expected a whole number of days >= 1; got "0"',
    ]);
  });

  it('validates every catalogue file', async () => {
    const problems = await problemsOf({
      'profiles.toml': '[profiles.fast]\nflags = "-fa on"\ndevice_class = "gpu"\n',
      'providers.toml': '[providers.openai]\nbase_url = "https://api.openai.com/v1"\napi_key_env = "bad name"\n',
      'capabilities.toml': '[capabilities.embed]\nslot = "missing"\n',
      'stacks.toml': '[stack.mine]\nname = "Mine"\nslots = [{ slot = "a", model = "m", device = "tpu" }]\n',
      'tokens.toml': '[[tokens]]\nid = "0123abcd"\nlabel = "ci"\nscope = "root"\nhash = "$argon2id$v=19$x"\ncreated_at = "2026-01-01T00:00:00Z"\n',
      'state:registry/registry.toml': '[models.tiny]\nsize_bytes = 3\n',
    });
    expect(problems).toEqual(expect.arrayContaining([
      'profiles.toml: profiles.fast.image: required (a string)',
      'providers.toml: providers.openai.api_key_env: expected an environment variable name matching [A-Za-z_][A-Za-z0-9_]*; got "bad name"',
      'capabilities.toml: capabilities.embed.slot: warning: names slot "missing", which has no slots/missing.toml',
      'stacks.toml: stack.mine.slots[0].device: expected one of gpu-rocm, gpu-vulkan, gpu-cuda, cpu, npu; got "tpu"',
      'tokens.toml: tokens[0].scope: expected one of admin, all, v1-only, read-only; got "root"',
      expect.stringMatching(/registry\/registry\.toml: models\.tiny\.path: required \(a string\)$/),
    ]));
  });
});
