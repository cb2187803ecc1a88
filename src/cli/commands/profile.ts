// svc profile list|show|create|edit|clone|delete: engine templates over /api/profiles.
import type { ProfilePayload, UpdateProfileRequest } from '../../protocol/profiles.js';
import type { ApiClient } from '../client.js';
import { print, printJson, table } from '../output.js';

type Json = { json?: boolean };

export interface ProfileFields {
  image?: string;
  deviceClass?: 'gpu' | 'cpu' | 'npu' | 'img';
  flags?: string;
  mtp?: boolean;
  backend?: string;
  intent?: string;
  quant?: string;
}

/** The options given, as request fields (`--backend none` is null). */
function fieldsOf(options: ProfileFields): UpdateProfileRequest {
  return {
    ...(options.image !== undefined && { image: options.image }),
    ...(options.deviceClass !== undefined && { device_class: options.deviceClass }),
    ...(options.flags !== undefined && { flags: options.flags }),
    ...(options.mtp !== undefined && { mtp: options.mtp }),
    ...(options.backend !== undefined && { backend: options.backend === 'none' ? null : (options.backend as 'rocm' | 'vulkan' | 'cuda') }),
    ...(options.intent !== undefined && { intent: options.intent }),
    ...(options.quant !== undefined && { quant: options.quant }),
  };
}

export async function profileList(client: ApiClient, options: Json): Promise<void> {
  const { profiles } = await client.listProfiles();
  if (options.json) return printJson({ profiles });
  const rows = profiles.map((p) => [p.name, p.seed ? 'seed' : p.cloned_from ? `clone of ${p.cloned_from}` : 'user', `${p.device_class}${p.backend ? `/${p.backend}` : ''}`, p.serves.join(','), p.used_by.join(', ') || '-', p.intent || '-']);
  for (const line of table(['NAME', 'KIND', 'DEVICE', 'SERVES', 'USED BY', 'INTENT'], rows)) print(line);
}

export async function profileShow(client: ApiClient, name: string, options: Json): Promise<void> {
  const profile = await client.getProfile(name);
  if (options.json) return printJson(profile);
  for (const line of describe(profile)) print(line);
}

function describe(p: ProfilePayload): string[] {
  const rows: Array<[string, string]> = [
    ['name', `${p.name}${p.seed ? ' (seed, immutable)' : ''}`], ['image', p.image || '-'], ['flags', p.flags || '-'],
    ['device', `${p.device_class}${p.backend ? ` / ${p.backend}` : ''}`], ['mtp', String(p.mtp)], ['serves', p.serves.join(', ')],
    ['intent', p.intent || '-'], ['quant', p.quant || '-'], ['cloned from', p.cloned_from ?? '-'], ['used by', p.used_by.join(', ') || '-'],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
}

export async function profileCreate(client: ApiClient, name: string, options: ProfileFields & Json): Promise<void> {
  const fields = fieldsOf(options);
  // No default class: the server names a missing one (a wrong default would be worse).
  const profile = await client.createProfile({ name, image: fields.image ?? '', ...fields } as Parameters<ApiClient['createProfile']>[0]);
  if (options.json) return printJson(profile);
  print(`created profile ${profile.name} (${profile.device_class}${profile.backend ? `/${profile.backend}` : ''})`);
}

export async function profileEdit(client: ApiClient, name: string, options: ProfileFields & Json & { restart?: boolean }): Promise<void> {
  const result = await client.editProfile(name, fieldsOf(options), options.restart);
  if (options.json) return printJson(result);
  print(`profile ${name} updated`);
  if (result.restarted.length) print(`restarted: ${result.restarted.join(', ')}`);
  const later = result.slots.filter((s) => !result.restarted.includes(s));
  if (later.length) print(`slot(s) ${later.join(', ')} take it at their next start (--restart restarts the running ones now)`);
}

export async function profileClone(client: ApiClient, name: string, to: string, options: Json): Promise<void> {
  const profile = await client.cloneProfile(name, to);
  if (options.json) return printJson(profile);
  print(`cloned profile ${name} to ${profile.name}; change it with \`svc profile edit ${profile.name} --flags …\``);
}

export async function profileDelete(client: ApiClient, name: string, options: Json & { force?: boolean }): Promise<void> {
  const result = await client.deleteProfile(name, options.force);
  if (options.json) return printJson(result);
  print(`deleted profile ${name}${result.slots.length ? `; slot(s) ${result.slots.join(', ')} still name it and will not start until they name another` : ''}`);
}
