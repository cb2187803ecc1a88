// The LAN walk's table (test/lan-walk.test.ts): for every field of every schema that reaches
// an engine's command line, environment or files (or a program, file or URL svc runs, reads
// or connects to), a request that gives it a hostile value from a LAN client, and what it
// must get: 403 config.host_only naming the key, 400 (no such value at all), or 404 (it names
// nothing this gateway has). Fields that cannot reach an engine are in lan-walk-exempt.ts.
//
// The gateway the walk runs has: slot `chat` (builtin, cpu, model `tiny`); from the host,
// profile `warm` (cpu, `--temp 0.7`), stacks `base` (a clean row) and `filer` (a row with
// `--slot-save-path`), tool servers `tool` (stdio) and `remote` (http), both disabled, a
// hermes persona `walker` (its file, as provisioning writes it), and `[mcp].allowed_hosts`
// naming 10.0.0.9:9, so that a tool-server URL there is judged on its other fields.

export type Expect =
  /** config.host_only, `key` among details.keys (exactly, or as a prefix when it ends with "…"). */
  | { status: 403; key: string }
  /** A refusal of its own (a pull host that is not allowed). */
  | { status: 403; code: string }
  | { status: 400 }
  | { status: 404 };

export interface HttpCase {
  method: 'POST' | 'PUT' | 'PATCH';
  path: string;
  body?: unknown;
  expect: Expect;
}

/** A call of a svc-admin tool (/mcp/admin/mcp): a refusal is a tool error, with nothing written. */
export interface ToolCase {
  tool: string;
  arguments: Record<string, unknown>;
}

export interface WalkContext {
  /** The gateway's port: a URL at it from the gateway's own loopback is what a tool-server URL must not reach. */
  port: number;
  /** An export of stack `base` as slug `walks`, with `stack` changed by `edit`, its checksum recomputed. */
  envelope(edit: (stack: Record<string, unknown>) => void): Record<string, unknown>;
}

const host = (key: string): Expect => ({ status: 403, key });
const BAD: Expect = { status: 400 };
const NONE: Expect = { status: 404 };
const post = (path: string, body: unknown, expect: Expect): HttpCase => ({ method: 'POST', path, body, expect });
const put = (path: string, body: unknown, expect: Expect): HttpCase => ({ method: 'PUT', path, body, expect });
const patch = (path: string, body: unknown, expect: Expect): HttpCase => ({ method: 'PATCH', path, body, expect });

/** A flag that writes a file of the caller's choice (llama-server's --log-file). */
const FILE_FLAG = '--log-file /tmp/svc-walk';
/** A value of a typed field that tries to carry a flag along. */
const SMUGGLED = `1 ${FILE_FLAG}`;

const SLOT = { name: 'walk', model: 'tiny', provider: 'llama-server', device: 'cpu' };
const create = (over: Record<string, unknown>, expect: Expect) => post('/api/slots', { ...SLOT, ...over }, expect);
const edit = (over: Record<string, unknown>, expect: Expect) => put('/api/slots/chat', over, expect);
const file = (section: string, key: string, value: unknown, expect: Expect) => edit({ file: { [section]: { [key]: value } } }, expect);

const ROW = { slot: 'p', model: 'tiny', device: 'cpu', provider: 'llama-server' };
const stack = (row: Record<string, unknown>, expect: Expect, over: Record<string, unknown> = {}) => post('/api/stacks', { slug: 'walks', name: 'w', slots: [{ ...ROW, ...row }], ...over }, expect);
const capability = (over: Record<string, unknown>, expect: Expect) => stack({ capabilities: [{ child: 'embed', model: 'tiny', ...over }] }, expect);

const PROFILE = { name: 'walkp', image: '', device_class: 'cpu' };
const agentInstall = (over: Record<string, unknown>, expect = host('agents.install')) => post('/api/agents/install', { name: 'pi', ...over }, expect);
const provision = (over: Record<string, unknown>) => post('/api/agents/hermes/provision', over, host('agent'));
const install = (over: Record<string, unknown>) => post('/api/install/apply', { slots: [{ ...SLOT, ...over }] }, host('storage_dir'));

/** Every walked field, by schema ("<module>:<export>") and field path as test/helpers/schema-fields.ts names them. */
export function walkCases(w: WalkContext): Record<string, Record<string, HttpCase>> {
  const loopback = `http://127.0.0.1:${w.port}/api/updates/rollback`;
  const settings = (section: string, key: string, value: unknown) => put('/api/settings', { [section]: { [key]: value } }, host(`${section}.${key}`));
  return {
    'protocol/slot-requests:CreateSlotRequestSchema': {
      name: create({ name: '../walk' }, BAD),
      model: create({ model: FILE_FLAG }, NONE),
      type: create({ type: 'llm --x' }, BAD),
      provider: create({ provider: 'llama-server --x' }, BAD),
      hardware: create({ hardware: 'cpu --x' }, BAD),
      device: create({ device: 'cpu --x' }, BAD),
      port: create({ port: SMUGGLED }, BAD),
      ctx_size: create({ ctx_size: SMUGGLED }, BAD),
      // ComfyUI's argparse reads the host's llama profile `--temp 0.7` as --temp-directory.
      profile: create({ model: 'sdxl', type: 'image', provider: 'comfyui', device: undefined, profile: 'warm' }, host('slots.walk flags --temp 0.7')),
      extra_args: create({ extra_args: FILE_FLAG }, host(`slots.walk flags ${FILE_FLAG}`)),
      'env.*': create({ env: { LLAMA_ARG_LOG_FILE: '/tmp/svc-walk' } }, host('slots.walk server.env.LLAMA_ARG_LOG_FILE')),
      'file.slot.*': create({ file: { slot: { chat_template: '/etc/shadow' } } }, host('slots.walk slot.chat_template /etc/shadow')),
      'file.model.*': create({ file: { model: { path: '/etc/passwd' } } }, host('slots.walk model.path /etc/passwd')),
      'file.server.*': create({ file: { server: { env: { PYTHONWARNINGS: 'ignore::x.Y', BROWSER: 'id' } } } }, host('slots.walk server.env.BROWSER')),
      'file.npu.*': create({ file: { npu: { asr: SMUGGLED } } }, BAD),
      'file.image.*': create({ file: { image: { default_size: FILE_FLAG } } }, BAD),
    },
    'protocol/slot-requests:EditSlotRequestSchema': {
      model: edit({ model: FILE_FLAG }, NONE),
      port: edit({ port: SMUGGLED }, BAD),
      ctx_size: edit({ ctx_size: SMUGGLED }, BAD),
      provider: edit({ provider: 'llama-server --x' }, BAD),
      hardware: edit({ hardware: 'rocm --x' }, BAD),
      device: edit({ device: 'cpu --x' }, BAD),
      profile: edit({ profile: '../../etc/passwd' }, BAD),
      extra_args: edit({ extra_args: '-m /etc/passwd' }, host('slots.chat flags -m /etc/passwd')),
      'env.*': edit({ env: { NODE_OPTIONS: '--require /tmp/x.js' } }, host('slots.chat server.env.NODE_OPTIONS')),
      enabled: edit({ enabled: SMUGGLED }, BAD),
      'file.slot.*': file('slot', 'rpc_workers', ['10.0.0.9:50052'], host('slots.chat slot.rpc_workers 10.0.0.9:50052')),
      'file.model.*': file('model', 'default', FILE_FLAG, host(`slots.chat model.default ${FILE_FLAG}`)),
      'file.server.*': file('server', 'extra_args', '--slot-save-path /tmp/s', host('slots.chat flags --slot-save-path /tmp/s')),
      'file.npu.*': file('npu', 'embed', SMUGGLED, BAD),
      'file.image.*': file('image', 'default_steps', SMUGGLED, BAD),
    },
    // Every key of a slot file, through `file` of PUT /api/slots/chat.
    'config/schema/slot:SlotFileSchema': {
      'slot.name': file('slot', 'name', '../walk', BAD),
      'slot.port': file('slot', 'port', SMUGGLED, BAD),
      'slot.type': file('slot', 'type', 'llm --x', BAD),
      'slot.device': file('slot', 'device', 'cpu --x', BAD),
      'slot.gpu_index': file('slot', 'gpu_index', '0,1;id', BAD),
      'slot.provider': file('slot', 'provider', 'builtin --x', BAD),
      'slot.profile': file('slot', 'profile', '../../etc/passwd', BAD),
      'slot.role': file('slot', 'role', '../walk', BAD),
      'slot.enabled': file('slot', 'enabled', SMUGGLED, BAD),
      'slot.enable_thinking': file('slot', 'enable_thinking', SMUGGLED, BAD),
      'slot.mtp': file('slot', 'mtp', SMUGGLED, BAD),
      'slot.chat_template': file('slot', 'chat_template', '/etc/shadow', host('slots.chat slot.chat_template /etc/shadow')),
      'slot.tool_calling': file('slot', 'tool_calling', SMUGGLED, BAD),
      'slot.vision': file('slot', 'vision', SMUGGLED, BAD),
      'slot.workers': file('slot', 'workers', SMUGGLED, BAD),
      'slot.rpc_workers[]': file('slot', 'rpc_workers', ['10.0.0.9:50052'], host('slots.chat slot.rpc_workers 10.0.0.9:50052')),
      'model.default': file('model', 'default', '-m /etc/passwd', host('slots.chat model.default -m /etc/passwd')),
      'model.path': file('model', 'path', '/etc/passwd', host('slots.chat model.path /etc/passwd')),
      'model.context_size': file('model', 'context_size', SMUGGLED, BAD),
      'model.n_gpu_layers': file('model', 'n_gpu_layers', SMUGGLED, BAD),
      'server.extra_args': file('server', 'extra_args', '--chat-template-file /etc/shadow', host('slots.chat flags --chat-template-file /etc/shadow')),
      'server.env.*': file('server', 'env', { LLAMA_ARG_RPC: '10.0.0.9:50052' }, host('slots.chat server.env.LLAMA_ARG_RPC')),
      'npu.asr': file('npu', 'asr', SMUGGLED, BAD),
      'npu.embed': file('npu', 'embed', SMUGGLED, BAD),
      // [rpc] is not a table `file` takes: an rpc-server's listener is set on the host.
      'rpc.host': file('rpc', 'host', '0.0.0.0', BAD),
      'rpc.allow_public': file('rpc', 'allow_public', true, BAD),
      'rpc.threads': file('rpc', 'threads', 2, BAD),
      'rpc.cache': file('rpc', 'cache', true, BAD),
    },
    'protocol/profiles:CreateProfileRequestSchema': {
      name: post('/api/profiles', { ...PROFILE, name: '../walkp' }, BAD),
      image: post('/api/profiles', { ...PROFILE, image: 'docker.io/library/busybox' }, host('profiles.walkp.image docker.io/library/busybox')),
      device_class: post('/api/profiles', { ...PROFILE, device_class: 'cpu --x' }, BAD),
      flags: post('/api/profiles', { ...PROFILE, flags: FILE_FLAG }, host(`profiles.walkp.flags ${FILE_FLAG}`)),
      mtp: post('/api/profiles', { ...PROFILE, mtp: SMUGGLED }, BAD),
      backend: post('/api/profiles', { ...PROFILE, backend: 'rocm --x' }, BAD),
    },
    'protocol/profiles:UpdateProfileRequestSchema': {
      image: put('/api/profiles/warm', { image: '--volume=/:/host' }, BAD),
      // The host's `--temp 0.7` was approved as llama-server's; as ComfyUI's it names a directory.
      device_class: put('/api/profiles/warm', { device_class: 'img' }, host('profiles.warm.flags --temp 0.7')),
      flags: put('/api/profiles/warm', { flags: '--temp 0.7 --lora /tmp/a.gguf' }, host('profiles.warm.flags --lora /tmp/a.gguf')),
      mtp: put('/api/profiles/warm', { mtp: SMUGGLED }, BAD),
      backend: put('/api/profiles/warm', { backend: 'cuda --x' }, BAD),
      // A TTS intent moves the profile to the speech servers' dialect, where --temp is no flag they know.
      intent: put('/api/profiles/warm', { intent: 'TTS voice' }, host('profiles.warm.flags --temp…')),
    },
    'protocol/profiles:CloneProfileRequestSchema': { name: post('/api/profiles/warm/clone', { name: '../walkp' }, BAD) },
    // A profile an imported envelope brings.
    'config/schema/profiles:ProfileSchema': {
      image: post('/api/stacks/import', w.envelope((s) => (s.profiles = { walkp: { image: 'docker.io/library/busybox', device_class: 'cpu' } })), host('profiles.walkp.image docker.io/library/busybox')),
      flags: post('/api/stacks/import', w.envelope((s) => (s.profiles = { walkp: { image: '', device_class: 'cpu', flags: FILE_FLAG } })), host(`profiles.walkp.flags ${FILE_FLAG}`)),
      mtp: post('/api/stacks/import', w.envelope((s) => (s.profiles = { walkp: { image: '', device_class: 'cpu', mtp: SMUGGLED } })), BAD),
      device_class: post('/api/stacks/import', w.envelope((s) => (s.profiles = { walkp: { image: '', device_class: 'img --x' } })), BAD),
      backend: post('/api/stacks/import', w.envelope((s) => (s.profiles = { walkp: { image: '', device_class: 'gpu', backend: 'cuda --x' } })), BAD),
    },
    'protocol/stacks:CreateStackRequestSchema': { slug: stack({}, BAD, { slug: '../walks' }) },
    'config/schema/stacks:StackSchema': {
      'slots[].slot': stack({ slot: '../p' }, BAD),
      'slots[].model': stack({ model: FILE_FLAG }, host(`stacks.walks.slots.p model ${FILE_FLAG}`)),
      'slots[].profile': stack({ model: 'sdxl', provider: 'comfyui', device: null, profile: 'warm' }, host('stacks.walks.slots.p flags --temp 0.7')),
      'slots[].device': stack({ device: 'cpu --x' }, BAD),
      'slots[].provider': stack({ provider: 'llama-server --x' }, BAD),
      'slots[].role': stack({ role: '../x' }, BAD),
      'slots[].vision': stack({ vision: SMUGGLED }, BAD),
      'slots[].mtp': stack({ mtp: SMUGGLED }, BAD),
      'slots[].enable_thinking': stack({ enable_thinking: SMUGGLED }, BAD),
      'slots[].server_extra_args': stack({ server_extra_args: FILE_FLAG }, host(`stacks.walks.slots.p flags ${FILE_FLAG}`)),
      'slots[].capabilities[].child': capability({ child: 'embed --x' }, BAD),
      'slots[].capabilities[].model': capability({ model: FILE_FLAG }, host(`stacks.walks.slots.p model ${FILE_FLAG}`)),
      'slots[].capabilities[].device': capability({ device: 'cpu --x' }, BAD),
      'slots[].capabilities[].provider': capability({ provider: 'flm --x' }, BAD),
      'slots[].capabilities[].enabled': capability({ enabled: SMUGGLED }, BAD),
    },
    'protocol/stacks:ImportStackRequestSchema': {
      envelope: post('/api/stacks/import', { envelope: w.envelope((s) => ((s.slots as Array<Record<string, unknown>>)[0]!.server_extra_args = '--slot-save-path /tmp/s')) }, host('stacks.walks.slots.p flags --slot-save-path /tmp/s')),
      slug: post('/api/stacks/import', { envelope: w.envelope(() => undefined), slug: '../walks' }, BAD),
    },
    'protocol/stacks:SnapshotStackRequestSchema': { slug: post('/api/stacks/snapshot', { slug: '../walks' }, BAD) },
    'protocol/mcp-requests:McpInstallRequestSchema': {
      spec: post('/api/mcp/install', { spec: 'sh -c id' }, host('spec')),
      url: post('/api/mcp/install', { url: loopback, id: 'walkurl', enabled: false }, host('url')),
      'manifest.*': post('/api/mcp/install', { manifest: { id: 'walkm', transport: 'stdio', command: '/bin/sh' } }, host('manifest.command')),
      id: post('/api/mcp/install', { url: 'http://10.0.0.9:9/mcp', id: '../walk' }, BAD),
    },
    // A record's fields, as install's manifest.
    'config/schema/mcp-server:McpServerFileSchema': {
      id: post('/api/mcp/install', { manifest: { id: '../walk', transport: 'streamable-http', url: 'http://10.0.0.9:9/mcp' } }, BAD),
      transport: post('/api/mcp/install', { manifest: { id: 'walkm', transport: 'stdio' } }, host('manifest.transport')),
      command: post('/api/mcp/install', { manifest: { id: 'walkm', transport: 'stdio', command: 'sh -c id' } }, host('manifest.command')),
      'args[]': post('/api/mcp/install', { manifest: { id: 'walkm', transport: 'stdio', command: 'node', args: ['-e', 'process.exit()'] } }, host('manifest.args')),
      url: post('/api/mcp/install', { manifest: { id: 'walkm', transport: 'streamable-http', url: loopback } }, host('manifest.url')),
      'env.*': post('/api/mcp/install', { manifest: { id: 'walkm', transport: 'stdio', command: 'node', env: { NODE_OPTIONS: '--require /tmp/x.js' } } }, host('manifest.env')),
      'secrets.*': post('/api/mcp/install', { manifest: { id: 'walkm', transport: 'stdio', command: 'node', secrets: { TOKEN: 'SVC_HF_TOKEN' } } }, host('manifest.secrets')),
    },
    'protocol/mcp-requests:McpConfigPatchSchema': {
      'env.*': patch('/api/mcp/tool/config', { env: { LD_PRELOAD: '/tmp/x.so' } }, host('env')),
      'secrets.*': patch('/api/mcp/tool/config', { secrets: { TOKEN: 'SVC_HF_TOKEN' } }, host('secrets')),
      'args[]': patch('/api/mcp/tool/config', { args: ['-e', 'process.exit()'] }, host('args')),
      url: patch('/api/mcp/remote/config', { url: loopback }, host('url')),
    },
    'protocol/agents:AgentInstallRequestSchema': {
      name: agentInstall({ name: '../pi' }, BAD), switch: agentInstall({ switch: true }), version: agentInstall({ version: '--registry=http://10.0.0.9' }, BAD),
      offline: agentInstall({ offline: true }), adopt: agentInstall({ adopt: true }), dry_run: agentInstall({ dry_run: true }),
      repair: agentInstall({ repair: true }), 'skip_phases[]': agentInstall({ skip_phases: ['verify'] }),
    },
    'protocol/agents:AgentUpgradeRequestSchema': { to: post('/api/agents/pi/upgrade', { to: '0.1.0' }, host('agents.install')) },
    'server/routes/agents-hermes:ProvisionBodySchema': {
      repair: provision({ repair: true }), 'skip_phases[]': provision({ skip_phases: ['verify'] }), dry_run: provision({ dry_run: true }),
      offline: provision({ offline: true }), adopt: provision({ adopt: true }), version: provision({ version: '0.1.0' }),
    },
    'server/routes/agents-personas:ActivateBodySchema': {
      reload_url: post('/api/agents/hermes/personas/walker/activate', { reload_url: loopback }, host('reload_url')),
    },
    'protocol/install:InstallApplyRequestSchema': {
      storage_dir: post('/api/install/apply', { storage_dir: '/tmp/svc-walk' }, host('storage_dir')),
      pull: post('/api/install/apply', { pull: true }, host('storage_dir')),
      'slots[].name': install({ name: 'walk2' }), 'slots[].model': install({ model: 'tiny' }), 'slots[].type': install({ type: 'llm' }),
      'slots[].provider': install({ provider: 'builtin' }), 'slots[].hardware': install({ hardware: 'cpu' }), 'slots[].device': install({ device: 'cpu' }),
      'slots[].port': install({ port: 8150 }), 'slots[].ctx_size': install({ ctx_size: 1024 }), 'slots[].profile': install({ profile: 'warm' }),
      'slots[].extra_args': install({ extra_args: FILE_FLAG }), 'slots[].env.*': install({ env: { LD_PRELOAD: '/tmp/x.so' } }),
      'slots[].file.slot.*': install({ file: { slot: { chat_template: '/etc/shadow' } } }), 'slots[].file.model.*': install({ file: { model: { path: '/etc/passwd' } } }),
      'slots[].file.server.*': install({ file: { server: { extra_args: FILE_FLAG } } }), 'slots[].file.npu.*': install({ file: { npu: { asr: true } } }),
      'slots[].file.image.*': install({ file: { image: { default_steps: 1 } } }), 'slots[].ref': install({ ref: 'http://127.0.0.1:9/x.gguf' }),
    },
    'protocol/slot-requests:AssignSlotModelRequestSchema': { model: put('/api/install/slots/chat/model', { model: FILE_FLAG }, NONE) },
    'protocol/slot-requests:LoadSlotRequestSchema': { model: post('/api/slots/chat/load', { model: FILE_FLAG }, NONE) },
    'protocol/slot-requests:SwapSlotRequestSchema': { model: post('/api/slots/chat/swap', { model: FILE_FLAG }, NONE) },
    'protocol/models:RegisterModelRequestSchema': {
      path: post('/api/models', { id: 'walk', path: '/etc/passwd' }, host('path')),
      id: post('/api/models', { id: '../walk', path: '/etc/passwd' }, host('path')),
      name: post('/api/models', { id: 'walk', path: '/etc/passwd', name: FILE_FLAG }, host('path')),
      license: post('/api/models', { id: 'walk', path: '/etc/passwd', license: FILE_FLAG }, host('path')),
      force: post('/api/models', { id: 'walk', path: '/etc/passwd', force: true }, host('path')),
    },
    'protocol/models:AssignModelRequestSchema': { slot: post('/api/models/tiny/assign', { slot: '../chat' }, NONE) },
    // A pull writes files into the store that engines read: only from Hugging Face and the host's allowed hosts.
    'protocol/pulls:PullRequestSchema': { ref: post('/api/models/walk/pull', { ref: `http://127.0.0.1:${w.port}/x.gguf` }, { status: 403, code: 'model.pull_host_not_allowed' }) },
    'protocol/updates:ApplyUpdateRequestSchema': {
      version: post('/api/updates/apply', { version: '0.0.1' }, host('POST /api/updates/apply')),
      allow_downgrade: post('/api/updates/apply', { allow_downgrade: true }, host('POST /api/updates/apply')),
    },
    // svc.toml: the host-only keys, with the values that would make svc run, read or reach something of the caller's.
    'config/schema/svc-toml:SvcTomlSchema': {
      'slots.publish_host': settings('slots', 'publish_host', '0.0.0.0'),
      'slots.port_range_start': put('/api/settings', { slots: { port_range_start: SMUGGLED } }, BAD),
      'slots.port_range_end': put('/api/settings', { slots: { port_range_end: SMUGGLED } }, BAD),
      'models.roots[]': settings('models', 'roots', ['/']),
      'models.file_extensions[]': put('/api/settings', { models: { file_extensions: ['/etc/passwd'] } }, BAD),
      'models.store': settings('models', 'store', '/tmp'),
      'models.pull_allowed_hosts[]': settings('models', 'pull_allowed_hosts', [`127.0.0.1:${w.port}`]),
      'memory.pgvector_url': settings('memory', 'pgvector_url', `postgres://svc@127.0.0.1:${w.port}/x`),
      'memory.hindsight_url': settings('memory', 'hindsight_url', loopback),
      'memory.mem0_url': settings('memory', 'mem0_url', loopback),
      'api.max_body_mb': settings('api', 'max_body_mb', 4096),
      'api.public_hostnames[]': settings('api', 'public_hostnames', ['attacker.example']),
      'api.allowed_origins[]': settings('api', 'allowed_origins', ['http://attacker.example']),
      'engines.llama_server': settings('engines', 'llama_server', '/tmp/x.sh'),
      'engines.flm': settings('engines', 'flm', 'sh -c id'),
      'engines.moonshine': settings('engines', 'moonshine', 'sh -c id'),
      'engines.kokoro': settings('engines', 'kokoro', 'sh -c id'),
      'engines.qwen3tts': settings('engines', 'qwen3tts', 'sh -c id'),
      'engines.comfyui': settings('engines', 'comfyui', 'sh -c id'),
      'engines.runtime': settings('engines', 'runtime', 'docker'),
      'mcp.registry_url': settings('mcp', 'registry_url', loopback),
      'mcp.allowed_hosts[]': settings('mcp', 'allowed_hosts', ['127.0.0.1']),
    },
  };
}

/** Routes whose engine input is not a field of the request but what they write from: "<what>". */
export function routeCases(): Record<string, HttpCase> {
  return {
    // A replace is judged against the row it replaces: the clean row of `base` gains a file flag.
    'stack replace': put('/api/stacks/base', { name: 'base', slots: [{ ...ROW, server_extra_args: `-t 2 ${FILE_FLAG}` }] }, host(`stacks.base.slots.p flags ${FILE_FLAG}`)),
    // Apply writes the host's stack `filer` into slots/p.toml: what the slot file gains is judged, whoever wrote the stack.
    'stack apply': post('/api/stacks/filer/apply', undefined, host('slots.p flags --slot-save-path /tmp/s')),
    // Which build of svc runs next.
    'update rollback': post('/api/updates/rollback', undefined, host('POST /api/updates/rollback')),
  };
}

/** svc-admin tools (/mcp/admin/mcp) with an argument that reaches an engine: "<tool> <argument>". */
export function toolCases(w: WalkContext): Record<string, ToolCase> {
  return {
    'slot_load model': { tool: 'slot_load', arguments: { name: 'chat', model: FILE_FLAG } },
    'model_pull id': { tool: 'model_pull', arguments: { id: '../walk' } },
    'model_pull ref': { tool: 'model_pull', arguments: { id: 'walk', ref: `http://127.0.0.1:${w.port}/x.gguf` } },
  };
}
