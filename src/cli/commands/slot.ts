// svc slot list|status|show|load|unload|restart|swap|create|edit|delete|logs: thin over
// /api/slots (docs/cli.md, "svc slot"). Options and defaults follow the spec's CLI table.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { stringifyToml, type TomlDoc } from '../../config/toml.js';
import { HARDWARE_FLAGS } from '../../protocol/hardware.js';
import { DEFAULT_CTX_SIZE, DEFAULT_LOG_LINES, LOG_RING_LINES, MAX_CTX_SIZE, MIN_CTX_SIZE } from '../../protocol/slot-limits.js';
import type { CreateSlotRequest, EditSlotRequest } from '../../protocol/slot-requests.js';
import type { SlotDetailPayload, SlotViewPayload } from '../../protocol/slots.js';
import { CREATE_PROVIDERS, IMAGE_PROVIDER, POOL_DEFAULT, SLOT_PORT_MAX, SLOT_PORT_MIN, SLOT_TYPES } from '../../protocol/vocabulary.js';
import type { ApiClient } from '../client.js';
import { CliExit, EXIT, print, printJson, table, warn } from '../output.js';
import { followLogs } from './slot-logs.js';
import { withStartFailure } from './slot-start-failure.js';

type Json = { json?: boolean };

const dash = (value: string | number | null | undefined) => (value === null || value === undefined || value === '' ? '-' : String(value));

function integer(value: string, what: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new InvalidArgumentError(`expected ${what} ${min}-${max}; got "${value}"`);
  return n;
}
const ctxSize = (value: string) => integer(value, 'a context size of', MIN_CTX_SIZE, MAX_CTX_SIZE);
const slotPort = (value: string) => integer(value, 'a slot port', SLOT_PORT_MIN, SLOT_PORT_MAX);
const lineCount = (value: string) => integer(value, 'a line count of', 1, Number.MAX_SAFE_INTEGER);

function provider(value: string): string {
  if (value === IMAGE_PROVIDER) throw new InvalidArgumentError(`"${IMAGE_PROVIDER}" is not accepted: image slots are created with --type image, which runs them on ${IMAGE_PROVIDER}`);
  if (!(CREATE_PROVIDERS as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${CREATE_PROVIDERS.join(', ')}; got "${value}"`);
  return value;
}

const providerOption = () => new Option('--provider <provider>', `engine: ${CREATE_PROVIDERS.join(', ')} (comfyui is not accepted: use --type image)`).argParser(provider);
const hardwareOption = () => new Option('--hardware <hardware>', 'vulkan, rocm, cuda or cpu (devices gpu-vulkan, gpu-rocm, gpu-cuda, cpu)').choices(HARDWARE_FLAGS);

export function registerSlotCommands(program: Command, client: () => ApiClient): void {
  const slot = program.command('slot').description('slots: list, inspect, load, unload, swap, create, edit, delete, logs');
  const json = () => new Option('--json', 'print JSON');

  slot.command('list').description('list slots with their state, port, pid and model').addOption(json()).action((o: Json) => slotList(client(), o));
  slot.command('status <name>').description("one slot's runtime state: model, port, pid, last error, memory").addOption(json()).action((name: string, o: Json) => slotStatus(client(), name, o));
  slot.command('show <name>').description("one slot's configuration and the command line its next start runs").addOption(json()).action((name: string, o: Json) => slotShow(client(), name, o));
  slot.command('load <name>').description('start a slot and wait until it is ready')
    .option('-m, --model <id>', 'load this registry model instead of the default (not saved; `svc slot swap` saves)')
    .action((name: string, o: { model?: string }) => slotLoad(client(), name, o));
  slot.command('unload <name>').description("stop a slot's engine").action((name: string) => slotUnload(client(), name));
  slot.command('restart <name>').description("stop a slot's engine and start it again").action((name: string) => slotRestart(client(), name));
  slot.command('swap <name>').description('hot-swap the model of a slot and save it as the default')
    .requiredOption('-m, --model <id>', 'registry model to serve')
    .option('--no-persist', 'do not save the model in the slot file (until the next config change)')
    .action((name: string, o: { model: string; persist: boolean }) => slotSwap(client(), name, o));
  slot.command('create <name>').description('create slots/<name>.toml (it is not started; `svc slot load` starts it)')
    .addOption(new Option('-t, --type <type>', 'slot type').choices(SLOT_TYPES).default('llm'))
    .addOption(providerOption())
    .addOption(hardwareOption())
    .requiredOption('-m, --model <id>', 'registry model the slot serves')
    .addOption(new Option('-p, --port <port>', `local port, ${SLOT_PORT_MIN}-${SLOT_PORT_MAX} (default: the first free port of the pool, [slots].port_range_start-port_range_end, ${POOL_DEFAULT.start}-${POOL_DEFAULT.end} unless set)`).argParser(slotPort))
    .addOption(new Option('--ctx-size <n>', `context size of llm, embedding and reranking slots, at least ${MIN_CTX_SIZE} (default: ${DEFAULT_CTX_SIZE})`).argParser(ctxSize))
    .action((name: string, o: CreateOptions) => slotCreate(client(), name, o));
  slot.command('edit <name>').description("change a slot's model, port, context size, provider or hardware")
    .option('--model <id>', 'registry model (the new default)')
    .addOption(new Option('--port <port>', `local port, ${SLOT_PORT_MIN}-${SLOT_PORT_MAX}`).argParser(slotPort))
    .addOption(new Option('--ctx-size <n>', `context size, at least ${MIN_CTX_SIZE}`).argParser(ctxSize))
    .addOption(providerOption())
    .addOption(hardwareOption())
    .action((name: string, o: EditOptions) => slotEdit(client(), name, o));
  slot.command('delete <name>').description('stop a slot and delete its slot file (its logs are kept)')
    .option('-f, --force', 'delete it even while it runs or serves requests', false)
    .action((name: string, o: { force: boolean }) => slotDelete(client(), name, o));
  slot.command('logs <name>').description("print a slot's engine log")
    .option('-f, --follow', 'keep printing new lines until Ctrl-C', false)
    .addOption(new Option('-n, --lines <n>', `how many of the last lines (the server keeps the last ${LOG_RING_LINES})`).argParser(lineCount).default(DEFAULT_LOG_LINES))
    .action((name: string, o: { follow: boolean; lines: number }) => slotLogs(client(), name, o));
}

export async function slotList(client: ApiClient, options: Json): Promise<void> {
  const result = await client.listSlots();
  if (options.json) return printJson(result);
  if (result.slots.length === 0) {
    print('no slots configured; create one with `svc slot create <name> --model <id>`');
    return;
  }
  // BACKEND is what the engine reports it computes on; "!" marks a mismatch with DEVICE (svc slot status says more).
  const rows = result.slots.map((s) => [s.name, s.type, s.device, s.provider, String(s.port), s.state, `${dash(s.backend)}${s.warnings.length > 0 ? '!' : ''}`, dash(s.pid), dash(s.model), String(s.in_flight)]);
  for (const line of table(['NAME', 'TYPE', 'DEVICE', 'PROVIDER', 'PORT', 'STATE', 'BACKEND', 'PID', 'MODEL', 'IN-FLIGHT'], rows)) print(line);
}

function ago(iso: string | null): string {
  if (!iso) return '-';
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return `${iso} (${seconds} s ago)`;
}

/** Label/value lines of a slot's runtime state. */
export function describeSlot(s: SlotViewPayload): string[] {
  const rows: Array<[string, string]> = [
    ['slot', s.name],
    ['state', `${s.state}${s.enabled ? '' : ' (disabled in its slot file)'}`],
    ['model', dash(s.model)],
    ['type', s.type],
    ['device', s.device],
    ['provider', s.provider],
    ['profile', s.profile ?? '- (the default for the device and model)'],
    ['port', String(s.port)],
    ['base url', dash(s.base_url)],
    ['pid', dash(s.pid)],
    ['in flight', String(s.in_flight)],
    ['started', ago(s.started_at)],
    ['last used', ago(s.last_used_at)],
    ['idle timeout', s.idle_timeout_s === 0 ? 'never (0)' : `${s.idle_timeout_s} s`],
    ['restarts', String(s.restarts)],
    ['memory', s.memory_mb === null ? '-' : `${s.memory_mb} MiB`],
    ['backend', s.backend ?? '- (not running, or the engine does not say)'],
    ['gpu layers', s.gpu_layers === null ? '-' : `${s.gpu_layers.offloaded}${s.gpu_layers.total === null ? '' : ` of ${s.gpu_layers.total}`}`],
    ...s.warnings.map((w): [string, string] => ['warning', w]),
  ];
  const e = s.last_error;
  if (e) {
    const exit = e.signal ? `, signal ${e.signal}` : e.exit_code !== undefined && e.exit_code !== null ? `, exit code ${e.exit_code}` : '';
    rows.push(['last error', `${e.code}: ${e.message} (at ${e.at}${exit})`]);
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
  if (e?.stderr_tail) lines.push('stderr tail:', ...e.stderr_tail.split('\n').map((l) => `  ${l}`));
  return lines;
}

export async function slotStatus(client: ApiClient, name: string, options: Json): Promise<void> {
  const detail = await client.getSlot(name);
  if (options.json) {
    const { file: _file, config: _config, launch: _launch, launch_error: _launchError, ...view } = detail;
    return printJson(view);
  }
  for (const line of describeSlot(detail)) print(line);
}

/** The validated config as TOML (unset keys left out), then the command of the next start. */
export function describeSlotConfig(detail: SlotDetailPayload): string[] {
  const withoutNulls = (section: Record<string, unknown>) => Object.fromEntries(Object.entries(section).filter(([, v]) => v !== null));
  const doc: TomlDoc = Object.fromEntries(Object.entries(detail.config).map(([k, v]) => [k, withoutNulls(v)]));
  const lines = [`# ${detail.file}, as loaded (defaults filled in; unset keys left out)`, ...stringifyToml(doc).trimEnd().split('\n'), ''];
  if (detail.launch) {
    const l = detail.launch;
    lines.push(`# command of the next start (${l.mode} mode), answering on ${l.base_url}`, l.command_line);
    const env = Object.entries(l.env);
    if (env.length > 0) lines.push('# environment on top of the gateway\'s', ...env.map(([k, v]) => `${k}=${v}`));
  } else if (detail.launch_error) {
    lines.push(`# the command cannot be built: ${detail.launch_error.code}: ${detail.launch_error.message}`);
  }
  return lines;
}

export async function slotShow(client: ApiClient, name: string, options: Json): Promise<void> {
  const detail = await client.getSlot(name);
  if (options.json) return printJson(detail);
  for (const line of describeSlotConfig(detail)) print(line);
}

const readyLine = (s: SlotViewPayload) => `slot ${s.name} is ${s.state}: model ${dash(s.model)} on port ${s.port}${s.pid === null ? '' : ` (pid ${s.pid})`}`;

export async function slotLoad(client: ApiClient, name: string, options: { model?: string }): Promise<void> {
  print(readyLine(await withStartFailure(name, client.loadSlot(name, options.model))));
}

export async function slotUnload(client: ApiClient, name: string): Promise<void> {
  const s = await client.unloadSlot(name);
  print(`slot ${s.name} is ${s.state}`);
}

export async function slotRestart(client: ApiClient, name: string): Promise<void> {
  print(readyLine(await withStartFailure(name, client.restartSlot(name))));
}

export async function slotSwap(client: ApiClient, name: string, options: { model: string; persist: boolean }): Promise<void> {
  const s = await withStartFailure(name, client.swapSlot(name, options.model, options.persist));
  print(readyLine(s));
  print(options.persist
    ? `saved ${s.model} as the default model in slots/${s.name}.toml`
    : `not saved: slots/${s.name}.toml keeps its default model; the slot runs ${s.model} until it is swapped or loaded with another model, or its default model is changed`);
}

interface CreateOptions {
  type: NonNullable<CreateSlotRequest['type']>;
  provider?: NonNullable<CreateSlotRequest['provider']>;
  hardware?: NonNullable<CreateSlotRequest['hardware']>;
  model: string;
  port?: number;
  ctxSize?: number;
}

export async function slotCreate(client: ApiClient, name: string, options: CreateOptions): Promise<void> {
  const body: CreateSlotRequest = { name, type: options.type, model: options.model };
  if (options.ctxSize !== undefined) body.ctx_size = options.ctxSize;
  if (options.provider !== undefined) body.provider = options.provider;
  if (options.hardware !== undefined) body.hardware = options.hardware;
  if (options.port !== undefined) body.port = options.port;
  const s = await client.createSlot(body);
  const context = s.ctx_size === null ? '' : `, context ${s.ctx_size}`;
  print(`created slot ${s.name} (slots/${s.name}.toml): type ${s.type}, device ${s.device}, provider ${s.provider}, port ${s.port}, model ${s.model}${context}`);
  if (s.provider_reason !== 'given') print(`provider ${s.provider}: ${s.provider_reason}`);
  for (const warning of s.warnings) warn(warning);
  print(`start it with \`svc slot load ${s.name}\` (or send it a request)`);
}

interface EditOptions {
  model?: string;
  port?: number;
  ctxSize?: number;
  provider?: NonNullable<EditSlotRequest['provider']>;
  hardware?: NonNullable<EditSlotRequest['hardware']>;
}

export async function slotEdit(client: ApiClient, name: string, options: EditOptions): Promise<void> {
  const body: EditSlotRequest = {};
  if (options.model !== undefined) body.model = options.model;
  if (options.port !== undefined) body.port = options.port;
  if (options.ctxSize !== undefined) body.ctx_size = options.ctxSize;
  if (options.provider !== undefined) body.provider = options.provider;
  if (options.hardware !== undefined) body.hardware = options.hardware;
  if (Object.keys(body).length === 0) {
    throw new CliExit(EXIT.usage, 'nothing to change: give at least one of --model, --port, --ctx-size, --provider, --hardware');
  }
  const result = await client.editSlot(name, body);
  if (result.changes.length === 0) {
    print(`slot ${name}: nothing changed (slots/${name}.toml already says that)`);
    return;
  }
  print(`slot ${name}: changed slots/${name}.toml`);
  for (const c of result.changes) print(`  ${c.key}: ${JSON.stringify(c.before)} -> ${JSON.stringify(c.after)}`);
  if (result.restart_required) print(`the engine still runs with the old settings; apply them with \`svc slot restart ${name}\``);
}

export async function slotDelete(client: ApiClient, name: string, options: { force: boolean }): Promise<void> {
  const result = await client.deleteSlot(name, options.force);
  const stopped = result.was === 'stopped' || result.was === 'disabled' ? '' : ` (stopped it: it was ${result.was})`;
  print(`deleted slot ${result.deleted}: removed ${result.file}${stopped}; its logs stay in ${result.state_dir}`);
}

export async function slotLogs(client: ApiClient, name: string, options: { follow: boolean; lines: number }): Promise<void> {
  if (options.follow) return followLogs(client, name, options.lines);
  const result = await client.slotLogs(name, options.lines);
  for (const line of result.lines) print(line);
}
