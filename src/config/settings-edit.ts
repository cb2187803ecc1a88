// What an edit of svc.toml over the API needs besides the settings writer (settings.ts): the
// rule that spans files, the change as before and after per key, and the keys the
// environment overrides (a value set there wins over the file, so the file's is not the one
// that runs).
import type { ResolvedConfig } from './load.js';
import type { ConfigProblem } from './problems.js';
import type { SvcToml } from './schema/svc-toml.js';

/** Read a dotted key out of a settings object. */
function valueAt(settings: SvcToml, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), settings);
}

/** Each changed key with its value before and after. */
export function settingsChanges(before: SvcToml, after: SvcToml, changed: readonly string[]): Record<string, { before: unknown; after: unknown }> {
  return Object.fromEntries(changed.map((key) => [key, { before: valueAt(before, key), after: valueAt(after, key) }]));
}

/** [memory.graph].extraction_slot is checked at set time against the enabled llm slots. */
export function extractionSlotRule(config: Pick<ResolvedConfig, 'slots'>, patch: Record<string, unknown>): ConfigProblem[] {
  const wanted = (patch.memory as { graph?: { extraction_slot?: unknown } } | undefined)?.graph?.extraction_slot;
  if (typeof wanted !== 'string') return []; // absent, reset (null), or a type error the schema reports
  const llmSlots = config.slots.filter((s) => s.config.slot.type === 'llm' && s.config.slot.enabled).map((s) => s.name);
  if (llmSlots.includes(wanted)) return [];
  return [{
    file: 'svc.toml',
    path: 'memory.graph.extraction_slot',
    message: `expected an enabled llm slot (${llmSlots.length ? `one of ${llmSlots.join(', ')}` : 'none is configured'}); got "${wanted}"`,
    severity: 'error',
  }];
}

/** The settings the environment sets, with the variable that sets each. */
export function envOverrides(config: Pick<ResolvedConfig, 'env'>): Array<{ key: string; env: string; value: unknown }> {
  const { env } = config;
  const out: Array<{ key: string; env: string; value: unknown }> = [];
  if (env.modelStore !== undefined) out.push({ key: 'models.store', env: 'SVC_MODEL_STORE', value: env.modelStore });
  if (env.activityRetentionDays !== undefined) out.push({ key: 'activity.retention_days', env: 'SVC_ACTIVITY_RETENTION_DAYS', value: env.activityRetentionDays });
  return out;
}
