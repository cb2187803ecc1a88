// svc.toml: the top-level configuration (docs/configuration.md, "svc.toml reference"). Every section and
// key is optional; an empty file means every default. Each key carries its description and
// apply class, which /api/settings/schema and docs/configuration.md are generated from.
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { tokenize } from '../../lib/shell-words.js';
import type { KeyMeta } from './common.js';
import { httpUrl, MEMORY_ENGINES, POOL_DEFAULT, POOL_PORT_LIMIT, SLOT_PORT_MAX, SLOT_PORT_MIN, slotName, UPDATE_CHANNELS } from './common.js';

/** The schema version this build writes; older files are migrated (see ../migrate.ts). */
export const LATEST_SCHEMA_VERSION = 3;

const key = <T extends z.ZodType>(schema: T, meta: KeyMeta) => schema.meta({ ...meta });
const section = <S extends z.ZodRawShape>(shape: S, description: string, meta: Pick<KeyMeta, 'unread'> = {}) =>
  // Every key of a section has a default, so an absent section is an empty one.
  z.strictObject(shape).prefault({} as never).meta({ description, ...meta });

const count = (min: number) => z.int().min(min);

export const metaSection = section({
  schema_version: key(z.int().min(1).max(LATEST_SCHEMA_VERSION).default(1), {
    description: 'Version of this file\'s layout. Absent means 1. `svc config migrate` moves it forward.',
    apply: 'manual',
  }),
}, 'File metadata.');

export const slotsSection = section({
  max_slots: key(count(0).default(0), {
    description: 'Most slots running at once; starting one more evicts the least-recently-used idle slot. 0 = unlimited.',
    apply: 'live',
  }),
  port_range_start: key(z.int().min(SLOT_PORT_MIN).max(POOL_PORT_LIMIT - 1).default(POOL_DEFAULT.start), {
    description: `First port of the pool new slots get a port from; the pool lies within ${SLOT_PORT_MIN}-${POOL_PORT_LIMIT - 1}. A slot's own port may be any of ${SLOT_PORT_MIN}-${SLOT_PORT_MAX}.`,
    apply: 'live',
  }),
  port_range_end: key(z.int().min(SLOT_PORT_MIN).max(POOL_PORT_LIMIT - 1).default(POOL_DEFAULT.end), {
    description: `Last port of the pool (inclusive); at least port_range_start and below ${POOL_PORT_LIMIT}, the image engine's port. Bounds only auto-allocation, not a slot's own port (${SLOT_PORT_MIN}-${SLOT_PORT_MAX}).`,
    apply: 'live',
  }),
  idle_timeout_s: key(count(0).default(300), {
    description: 'Seconds after its last request before an idle slot is stopped; a slot\'s own idle_timeout_s overrides it. 0 disables.',
    apply: 'live',
  }),
  evict_pressure_mb: key(count(0).default(8192), {
    description: 'Host available-memory floor in MiB; below it idle slots are stopped, least-recently-used first, until memory recovers. 0 disables.',
    apply: 'live',
  }),
  health_interval_s: key(z.number().min(0).default(5), {
    description: 'Seconds between health probes of a ready engine (one at a time per slot; a probe times out after 3 s). 0 disables the watch.',
    apply: 'live',
  }),
  start_at_boot: key(z.boolean().default(true), {
    description: 'Start every enabled slot when the gateway starts (within max_slots and the memory floor). false: slots start on their first request or `svc slot load` only, for a host with more models configured than it runs at once.',
    apply: 'restart:svc-api',
  }),
  health_failures: key(count(1).default(3), {
    description: 'Failed health probes in a row (timeouts included) after which a ready engine whose process still runs is killed, marked error with slot.unhealthy, and restarted with the crash backoff.',
    apply: 'live',
  }),
  publish_host: key(z.string().min(1).default('127.0.0.1'), {
    description: 'Address slot engines listen on. 0.0.0.0 exposes every slot\'s raw port on the network, bypassing the API. Applies at each slot\'s next start.',
    apply: 'restart:slots',
  }),
}, 'Slot runtime: ports, eviction, limits.');

export const dispatcherSection = section({
  prefetch_timeout_s: key(z.number().gt(0).default(8.0), {
    description: 'Seconds a cold fetch of remote upstream model lists may take.',
    apply: 'live',
  }),
  prefetch_parallel_cap: key(count(1).default(4), {
    description: 'Most remote upstream model lists fetched at once.',
    apply: 'live',
  }),
  responses_ttl_s: key(z.number().int().min(0).default(30 * 24 * 3600), {
    description: 'Seconds a /v1/responses answer with store: true is kept (for previous_response_id and GET /v1/responses/{id}); 0 = never stored.',
    apply: 'live',
  }),
  responses_max_mb: key(z.int().min(1).max(1_048_576).default(256), {
    description: 'Most MiB the stored /v1/responses answers take together; past it the oldest are removed (a `store.pruned` event) until a tenth is free. An answer larger than this (or than 16 MiB) is not stored (store: false).',
    apply: 'live',
  }),
  responses_max_rows: key(count(1).default(10_000), {
    description: 'Most stored /v1/responses answers; past it the oldest are removed (a `store.pruned` event) until a tenth is free.',
    apply: 'live',
  }),
}, 'Request routing to slots and remote upstreams.');

export const telemetrySection = section({
  enabled: key(z.boolean().default(false), { description: 'Opt-in anonymous telemetry.', apply: 'live', unread: true }),
}, 'Telemetry.');

// Schema version 3 moved the channel here from [telemetry] (../migrate.ts).
export const updatesSection = section({
  channel: key(z.enum(UPDATE_CHANNELS).default('stable'), { description: 'Update channel: `stable` follows the package\'s `latest` dist-tag on the npm registry, `nightly` its `nightly` tag (`svc update`, /api/updates).', apply: 'live' }),
}, 'Updates of svc itself (`svc update`, /api/updates).');

const absolutePath = z.string().refine(isAbsolute, { message: 'expected an absolute path' });

export const modelsSection = section({
  roots: key(z.array(absolutePath).optional(), {
    description: 'Absolute directories scanned for model files. Default: the models directory under the state root (/var/lib/svc/models).',
    apply: 'restart:svc-api',
  }),
  auto_scan_on_start: key(z.boolean().default(true), { description: 'Scan the roots for models at startup.', apply: 'live' }),
  file_extensions: key(z.array(z.string().regex(/^\.[A-Za-z0-9_.-]+$/, { message: 'expected a file suffix like ".gguf"' })).default(['.gguf', '.safetensors']), {
    description: 'File suffixes that count as model files.',
    apply: 'restart:svc-api',
  }),
  store: key(z.string().refine((v) => v === '' || isAbsolute(v), { message: 'expected an absolute path or ""' }).default(''), {
    description: 'The one directory models are read from and pulled into. Empty = the first root. SVC_MODEL_STORE overrides.',
    apply: 'restart:slots',
  }),
  pull_parallel_cap: key(count(1).max(16).default(2), {
    description: 'Most model pulls downloading at once; the rest wait in `queued`.',
    apply: 'live',
  }),
  pull_queue_max: key(count(1).max(1024).default(32), {
    description: 'Most model pulls queued or running at once (each is a job record on disk); one more is refused with 503 model.pull_queue_full. Finished jobs kept: the newest 50.',
    apply: 'live',
  }),
  pull_allowed_hosts: key(z.array(z.string().regex(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, { message: 'expected a host name or host:port' })).default([]), {
    description: 'Hosts a pull may fetch a direct https:// URL from, besides the Hugging Face endpoint (SVC_HF_ENDPOINT, else HF_ENDPOINT, else huggingface.co) and the hosts it redirects to.',
    apply: 'live',
  }),
  pull_stall_timeout_s: key(count(1).max(3600).default(30), {
    description: 'A pull connection that brings no byte for this long is dropped and retried (with backoff), resuming where it stopped.',
    apply: 'live',
  }),
}, 'Model discovery, storage and pulls.');

export const memorySection = section({
  enabled: key(z.boolean().default(true), { description: 'Serve /api/memory/*; false answers 503 memory.unavailable on every data route.', apply: 'live' }),
  engine: key(z.enum(MEMORY_ENGINES).refine((v) => v !== 'cognee', { message: 'cognee was retired (v1.0.0): use "pgvector", "hindsight" or "mem0" (svc memory migrate reads a legacy cognee index)' }).default('hindsight'), {
    description: 'Active memory engine: pgvector (embedded, or [memory].pgvector_url), hindsight (the Hindsight daemon at hindsight_url) or mem0 (a mem0 server at mem0_url); cognee is retired and refused (docs/memory.md).',
    apply: 'restart:svc-memory',
  }),
  unified_bank: key(z.boolean().default(true), {
    description: 'Every write goes to the `shared` bank, a private one tagged visibility:private (read back only by its agent); false: private writes go to the bank private__<agent>.',
    apply: 'live',
  }),
  pgvector_url: key(z.string().refine((v) => v === '' || /^postgres(?:ql)?:\/\/[^\s]+$/.test(v), { message: 'expected a postgres:// URL or ""' }).default(''), {
    description: 'The `pgvector` engine\'s Postgres server (a postgres:// URL; the password may instead come from SVC_MEMORY_PG_PASSWORD). Empty = the embedded database, run as its own process under the state directory.',
    apply: 'restart:svc-memory',
  }),
  idle_timeout_s: key(count(0).default(600), {
    description: 'The embedded database process stops after this many seconds unused and starts again on the next use. 0 = never stopped while the gateway runs.',
    apply: 'live',
  }),
  hindsight_url: key(z.string().refine((v) => v === '' || /^https?:\/\/[^\s]+$/.test(v), { message: 'expected an http(s):// URL or ""' }).default(''), {
    description: 'The hindsight engine\'s daemon. Empty = SVC_HINDSIGHT_URL, else http://127.0.0.1:9177. Its bearer key comes from SVC_HINDSIGHT_API_KEY or HINDSIGHT_API_TENANT_API_KEY (never logged).',
    apply: 'restart:svc-memory',
  }),
  hindsight_reprobe_interval_s: key(z.int().min(-1).max(86_400).default(30), {
    description: 'While the Hindsight daemon is down (degraded mode, writes kept in the outbox), how often it is probed again; when it answers, the outbox is replayed in order and the engine promoted. 0 or less: only POST /api/memory/promote tries.',
    apply: 'restart:svc-memory',
  }),
  mem0_url: key(z.string().refine((v) => /^https?:\/\/[^\s]+$/.test(v), { message: 'expected an http(s):// URL' }).default('http://127.0.0.1:8888'), {
    description: 'The mem0 engine\'s server (mem0\'s REST API: /memories, /search). Its API key, if it needs one, comes from SVC_MEM0_API_KEY (sent as a bearer token, never logged).',
    apply: 'restart:svc-memory',
  }),
  max_items_per_bank: key(count(1).default(100_000), {
    description: 'Most memories one bank of svc\'s own store (pgvector) holds; an add or import past it is refused with 507 memory.bank_full, nothing is deleted.',
    apply: 'live',
  }),
  max_banks: key(count(1).default(100), {
    description: 'Most banks svc\'s own store (pgvector) holds; a write that would make one more is refused with 507 memory.too_many_banks.',
    apply: 'live',
  }),
  embedding: section({
    embed_model: key(z.string().min(1).default('svc/embed'), {
      description: 'Model the memory embeds with, called in process through the dispatcher (an embedding slot, svc/embed by default).',
      apply: 'live',
    }),
    rerank_gateway_url: key(z.union([z.literal(''), httpUrl()]).default(''), {
      description: 'Not used: the memory reranker calls the rerank model in process through the dispatcher, not over HTTP. Empty = this gateway, at the address it listens on (the settings show it).',
      apply: 'live',
      unread: true,
    }),
    rerank_model: key(z.string().min(1).default('bge-reranker-v2-m3-q4_k_m'), {
      description: 'Rerank model id sent to the gateway; must resolve to a model a reranking slot serves.',
      apply: 'live',
    }),
    rerank_connect_timeout_s: key(z.number().min(0.05).max(10).default(1.0), {
      description: 'TCP connect timeout of the reranker, seconds.',
      apply: 'live',
    }),
    rerank_read_timeout_s: key(z.number().min(0.05).max(60).default(8.0), {
      description: 'Read budget of the reranker, seconds. On either timeout recall falls back to fused vector order.',
      apply: 'live',
    }),
  }, 'Second-pass reranker over cross-bank recall results.'),
  graph: section({
    enabled: key(z.boolean().default(false), { description: 'Graph extraction: on pgvector each new memory is queued for the extraction slot (entities and relations per bank; docs/memory.md "Graph"); on hindsight the daemon builds its graph itself and this is a reporting gate.', apply: 'live' }),
    extraction_slot: key(slotName().default('utility'), {
      description: 'Local llm slot used for graph extraction (slot-name grammar); checked against the enabled llm slots when set. On hindsight PUT /api/memory/graph propagates it to the daemon (svc/<slot>).',
      apply: 'live',
    }),
    llm_timeout_s: key(z.int().min(30).max(3600).default(300), {
      description: 'Timeout of one extraction call, seconds (read at each call); on hindsight the daemon\'s LLM calls, propagated by PUT /api/memory/graph, which restarts it.',
      apply: 'restart:svc-memory',
    }),
  }, 'Memory graph extraction.'),
}, 'Memory subsystem.');

export const activitySection = section({
  enabled: key(z.boolean().default(true), { description: 'Record every config change and system state change in the activity log.', apply: 'live' }),
  retention_days: key(count(1).default(30), {
    description: 'Rows older than this many days are pruned. SVC_ACTIVITY_RETENTION_DAYS overrides.',
    apply: 'live',
  }),
  // TOML has no null: the file spells "no cap" as `max_rows = false`, the API as null.
  max_rows: key(z.preprocess((v) => (v === false ? null : v), count(100).nullable()).default(50000), {
    description: 'Row cap; null (false in the TOML file) disables it.',
    apply: 'live',
  }),
  max_mb: key(z.int().min(1).max(1_048_576).default(64), {
    description: 'Most MiB the activity rows take together (a row\'s details over 256 KiB are kept as a note of their size); past it the oldest rows are removed (a `store.pruned` event) until a tenth is free. Holds even with max_rows disabled.',
    apply: 'live',
  }),
}, 'Activity log.');

/** A Host name svc may answer to: a DNS name, optionally "*." for its subdomains, or an IP literal. */
const HOST_NAME = /^(?:(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*\.?|\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f:]+)$/;
const ORIGIN = /^https?:\/\/(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\])(?::\d{1,5})?\/?$/;

export const apiSection = section({
  max_body_mb: key(z.int().min(1).max(4096).default(64), {
    description: 'Largest request body the API accepts, in MiB; larger bodies get 413 request.too_large.',
    apply: 'restart:svc-api',
  }),
  public_hostnames: key(z.array(z.string().regex(HOST_NAME, { message: 'expected a host name ("svc.lan", "*.svc.lan") or an IP address, without scheme or port' })).default([]), {
    description: 'Names (and IP addresses) clients reach this gateway by, besides localhost, *.localhost, loopback and the address a connection arrives on, and the auth-mode hostname. A request with any other Host is refused (421 request.unknown_host), so no web page can reach svc by rebinding a name of its own to this host. "*.example.org" allows every subdomain.',
    apply: 'live',
  }),
  allowed_origins: key(z.array(z.string().regex(ORIGIN, { message: 'expected an origin: http(s)://host[:port], no path' })).default([]), {
    description: 'Web origins whose pages may call this gateway (CORS), e.g. "http://localhost:3000". Pages on any other origin cannot change anything (403 request.cross_site) nor read answers.',
    apply: 'live',
  }),
}, 'The HTTP API itself (not in the original spec).');

export const ENGINE_RUNTIMES = ['process', 'podman', 'docker'] as const;

/**
 * The engines started from a command line of the user's ([engines].<key>): the SVC_* variable
 * used when it is empty, then a program name looked up on PATH for engines that install one.
 */
export const ENGINE_COMMAND_KEYS: Readonly<Record<'flm' | 'moonshine' | 'kokoro' | 'qwen3tts' | 'comfyui', { env: string; example: string; onPath?: string }>> = {
  flm: { env: 'SVC_FLM', example: '/usr/bin/flm', onPath: 'flm' },
  moonshine: { env: 'SVC_MOONSHINE', example: 'python3 /opt/moonshine/moonshine_server.py' },
  kokoro: { env: 'SVC_KOKORO', example: '/opt/kokoro/kokoro_server' },
  qwen3tts: { env: 'SVC_QWEN3TTS', example: 'python3 /opt/qwen3tts/qwen3tts_server.py' },
  comfyui: { env: 'SVC_COMFYUI', example: 'python3 /opt/ComfyUI/main.py' },
};

// A command line: it must split into words (shell quoting), and its program is an absolute
// path or a bare name looked up on PATH; a relative path would depend on the gateway's cwd.
const commandLine = z.string().refine((v) => {
  try {
    const program = tokenize(v)[0];
    return program === undefined || isAbsolute(program) || !program.includes('/');
  } catch {
    return false;
  }
}, { message: 'expected a command line whose program is an absolute path or a name on PATH, with balanced quotes' });

function engineCommandKeys() {
  const keys = {} as Record<keyof typeof ENGINE_COMMAND_KEYS, z.ZodDefault<typeof commandLine>>;
  for (const [name, { env, example, onPath }] of Object.entries(ENGINE_COMMAND_KEYS)) {
    keys[name as keyof typeof ENGINE_COMMAND_KEYS] = key(commandLine.default(''), {
      description: `Command line that starts the ${name} engine as a process, e.g. "${example}"; svc appends the engine's flags (host, port, model, profile flags, extra_args). Empty = ${env}${onPath ? `, then ${onPath} on PATH` : ''}. Not needed when [engines].runtime runs the profile's image.`,
      apply: 'restart:slots',
    });
  }
  return keys;
}

export const enginesSection = section({
  llama_server: key(z.string().refine((v) => v === '' || isAbsolute(v), { message: 'expected an absolute path or ""' }).default(''), {
    description: 'Absolute path of the llama-server binary. Empty = SVC_LLAMA_SERVER, then llama-server on PATH. Get one from llama.cpp\'s releases (or, in a checkout of svc, `npm run llama-server` builds one; docs/troubleshooting.md).',
    apply: 'restart:slots',
  }),
  ...engineCommandKeys(),
  runtime: key(z.enum(ENGINE_RUNTIMES).default('process'), {
    description: 'How slot engines run: as plain processes, or inside their profile\'s image with podman or docker. Profiles without an image always run as processes.',
    apply: 'restart:slots',
  }),
}, 'Engine binaries and how slot engines are run (not in the original spec).');

export const mcpSection = section({
  max_rounds: key(count(1).default(8), {
    description: 'Most model rounds of one `omni: true` chat; a model still asking for tools after them ends the request with omni.max_rounds.',
    apply: 'live',
  }),
  tool_timeout_s: key(z.number().gt(0).default(60), {
    description: 'Seconds one tool call may take (the wait in the approvals queue is not counted); then it fails with mcp.tool_timeout.',
    apply: 'live',
  }),
  approval_timeout_s: key(z.number().gt(0).default(300), {
    description: 'Seconds a call to a gated tool waits in the approvals queue; then it is expired and the call fails (mcp.tool_failed, reason approval_timeout).',
    apply: 'live',
  }),
  registry_url: key(httpUrl().default('https://registry.modelcontextprotocol.io'), {
    description: 'The MCP Registry whose servers `svc mcp catalog refresh` adds to the catalog (GET <url>/v0/servers).',
    apply: 'live',
  }),
  allowed_hosts: key(z.array(z.string().regex(/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/, { message: 'expected a host name, an IP address ([v6] in brackets) or either with :port' })).default([]), {
    description: 'Hosts (host or host:port) a client off this host may point a tool server URL at. Any other URL needs this host or an admin token; loopback, link-local, unspecified addresses and svc\'s own listeners are refused to such a client even when listed, and a listed name is never connected to one of them.',
    apply: 'live',
  }),
  restart_max: key(count(1).default(5), {
    description: 'Crashes of a stdio tool server within restart_window_s after which the supervisor stops restarting it and leaves it in state error.',
    apply: 'live',
  }),
  restart_window_s: key(z.number().gt(0).default(60), {
    description: 'The window, in seconds, in which restart_max crashes count as a crash loop.',
    apply: 'live',
  }),
  ping_interval_s: key(z.number().min(0).default(30), {
    description: 'Seconds between MCP pings of a ready tool server; a ping that fails restarts a stdio server and marks a remote one error. 0 disables.',
    apply: 'live',
  }),
}, 'Tool servers (MCP), approvals and the omni tool loop (docs/mcp.md).');

export const SvcTomlSchema = z.strictObject({
  meta: metaSection,
  slots: slotsSection,
  dispatcher: dispatcherSection,
  telemetry: telemetrySection,
  updates: updatesSection,
  models: modelsSection,
  memory: memorySection,
  activity: activitySection,
  api: apiSection,
  engines: enginesSection,
  mcp: mcpSection,
});

export type SvcToml = z.output<typeof SvcTomlSchema>;
