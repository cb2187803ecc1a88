// The page's edits as data: which keys differ from the running settings, the one partial
// object a save sends (PUT /api/settings deep-merges it), how each change takes effect in
// words, and why a key is not editable here.
import type { ApplyClass, SettingDescription, SettingsTree } from '../../../../src/protocol/settings-wire.js';
import { checkFor, type Draft } from './check.js';

/** The value at a dotted key of the settings tree (undefined when absent). */
export function valueAt(tree: SettingsTree | undefined, key: string): unknown {
  let node: unknown = tree;
  for (const part of key.split('.')) node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  return node;
}

export interface Change {
  key: string;
  before: unknown;
  after: unknown;
}

/** The drafts that check and differ from the running value: what a save would send. */
export function changesOf(keys: readonly SettingDescription[], drafts: Readonly<Record<string, Draft>>, settings: SettingsTree | undefined): Change[] {
  const out: Change[] = [];
  for (const description of keys) {
    const draft = drafts[description.key];
    if (draft === undefined) continue;
    const checked = checkFor(description)(draft);
    const before = valueAt(settings, description.key);
    if (checked.ok && JSON.stringify(checked.value) !== JSON.stringify(before ?? null)) out.push({ key: description.key, before, after: checked.value });
  }
  return out;
}

/** The partial settings object of some changes ({slots:{idle_timeout_s:600}}). */
export function patchOf(changes: readonly Change[]): SettingsTree {
  const patch: SettingsTree = {};
  for (const { key, after } of changes) {
    const parts = key.split('.');
    let node = patch;
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as SettingsTree;
    node[parts[parts.length - 1]!] = after;
  }
  return patch;
}

/**
 * How a change takes effect, in words. `slots` are the slots running now: a
 * `restart:slots` key reaches each of them only at its next start, so they are named.
 */
export function applyWords(applyClass: ApplyClass, runningSlots: readonly string[] = []): string {
  if (applyClass === 'live') return 'applies at once';
  if (applyClass === 'manual') return 'needs a manual restart of svc';
  const service = applyClass.slice('restart:'.length);
  if (service === 'slots') {
    return runningSlots.length > 0
      ? `at each slot's next start: restart ${runningSlots.join(', ')} (running now) to apply it`
      : "at each slot's next start (no slot is running now)";
  }
  if (service === 'svc-api') return 'when the gateway restarts (svc restart)';
  if (service === 'svc-memory') return 'when the memory service restarts';
  return `when ${service} restarts`;
}

export interface Permissions {
  hostAuthority: boolean;
  /** Why writes are refused (a read-only token), or undefined when they pass. */
  writeRefused: string | undefined;
  hostOnly: Readonly<Record<string, string>>;
}

/** Why a key is read-only on this page, or undefined when it can be edited. */
export function readOnlyReason(key: string, permissions: Permissions): string | undefined {
  if (key.startsWith('meta.')) return 'the file layout version: `svc config migrate` moves it forward';
  if (permissions.writeRefused) return permissions.writeRefused;
  const hostOnly = permissions.hostOnly[key];
  if (hostOnly !== undefined && !permissions.hostAuthority) {
    return `host-only (${hostOnly}): set it on the host (svc config edit) or with an admin token`;
  }
  return undefined;
}

/** A value as the page shows it (the confirm dialog's before and after). */
export function shown(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}
