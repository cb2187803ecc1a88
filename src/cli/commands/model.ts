// svc model list|show|register|rm|assign: the model registry over /api/models.
import type { ModelPayload } from '../../protocol/models.js';
import type { ApiClient } from '../client.js';
import { print, printJson, table } from '../output.js';

type Json = { json?: boolean };

/** 1536 -> "1.5 KiB"; null -> "-". */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}

const dash = (value: string | number | null | undefined) => (value === null || value === undefined || value === '' ? '-' : String(value));
const list = (values: readonly string[]) => (values.length ? values.join(', ') : '-');

export async function modelList(client: ApiClient, options: Json): Promise<void> {
  const result = await client.listModels();
  if (options.json) return printJson(result);
  if (result.models.length === 0) {
    print('no models registered');
    print(`register one with \`svc model register <id> --path <file>\`, or put model files under ${result.roots.join(', ') || 'a [models].roots directory'} (scanned at start)`);
    return;
  }
  const rows = result.models.map((m) => [
    m.id,
    dash(m.name),
    formatBytes(m.size_bytes),
    dash(m.context_length),
    m.source,
    list(m.used_by),
    `${m.path}${m.present ? '' : ' (missing)'}`,
  ]);
  for (const line of table(['ID', 'NAME', 'SIZE', 'CTX', 'SOURCE', 'USED BY', 'PATH'], rows)) print(line);
}

export async function modelShow(client: ApiClient, ref: string, options: Json): Promise<void> {
  const model = await client.getModel(ref);
  if (options.json) return printJson(model);
  for (const line of describeModel(model)) print(line);
}

function describeModel(m: ModelPayload): string[] {
  const rows: Array<[string, string]> = [
    ['id', m.id],
    ['name', dash(m.name)],
    ['path', `${m.path}${m.present ? '' : ' (missing)'}`],
  ];
  if (m.files.length) rows.push(['parts', m.files.join(', ')]);
  rows.push(
    ['size', m.size_bytes === null ? '-' : `${formatBytes(m.size_bytes)} (${m.size_bytes} bytes)`],
    ['context', dash(m.context_length)],
    ['license', m.license],
    ['source', m.source],
    ['tags', list(m.tags)],
    ['capabilities', list(m.capabilities)],
    ['mmproj', dash(m.mmproj)],
  );
  if (m.defaults.profile) rows.push(['profile', m.defaults.profile]);
  if (m.defaults.context_size) rows.push(['default ctx', String(m.defaults.context_size)]);
  if (m.hf_repo) rows.push(['hf', `${m.hf_repo}${m.hf_filename ? `/${m.hf_filename}` : ''}`]);
  if (m.sha256) rows.push(['sha256', m.sha256]);
  rows.push(['used by', list(m.used_by)]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
}

export async function modelRegister(client: ApiClient, id: string, options: { path: string; name?: string; license?: string; force?: boolean }): Promise<void> {
  const result = await client.registerModel({ id, path: options.path, name: options.name, license: options.license, ...(options.force && { force: true }) });
  const m = result.model;
  const facts = [formatBytes(m.size_bytes), m.context_length ? `context ${m.context_length}` : undefined, m.mmproj ? `mmproj ${m.mmproj}` : undefined].filter(Boolean);
  print(`${result.created ? 'registered' : 'refreshed'} model ${m.id}: ${m.path} (${facts.join(', ')})`);
  for (const warning of result.warnings) process.stderr.write(`svc: warning: ${warning}\n`);
}

export async function modelRemove(client: ApiClient, ref: string, options: { force?: boolean }): Promise<void> {
  const result = await client.removeModel(ref, options.force ?? false);
  print(`removed model ${result.removed} from the registry (the file stays: ${result.path})`);
  if (result.used_by.length) print(`slot(s) ${result.used_by.join(', ')} still name it as their default; assign them another model with \`svc model assign <id> --slot <name>\``);
}

export async function modelAssign(client: ApiClient, ref: string, options: { slot: string }): Promise<void> {
  const result = await client.assignModel(ref, options.slot);
  const was = result.before && result.before !== result.model ? ` (was ${result.before})` : '';
  print(`slot ${result.slot}: default model is now ${result.model}${was}; it takes effect the next time the slot loads`);
  if (result.cleared_path) print(`removed [model].path ${result.cleared_path} from slots/${result.slot}.toml (it would have won over the default)`);
}
