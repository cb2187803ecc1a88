// What the Settings page reads and sends. The running settings are read again whenever the
// event stream says they changed (settings.changed from any client, config.reloaded).
import { queryOptions, useQueryClient } from '@tanstack/react-query';
import type { ApplyPlan, SettingsPayload, SettingsReloadPayload, SettingsSchemaPayload, SettingsTree, SettingsUpdatePayload } from '../../../../src/protocol/settings-wire.js';
import { getJson, sendJson } from '../../api-error.js';
import { useEvents } from '../../live.js';

export const settingsQuery = queryOptions({ queryKey: ['settings'], queryFn: ({ signal }) => getJson<SettingsPayload>('/api/settings', signal) });
/** The schema changes only with svc's version: read once per page load. */
export const schemaQuery = queryOptions({
  queryKey: ['settings', 'schema'],
  queryFn: ({ signal }) => getJson<SettingsSchemaPayload>('/api/settings/schema', signal),
  staleTime: Infinity,
});

export const readApplyPlan = (keys: readonly string[]) => getJson<ApplyPlan>(`/api/settings/apply-plan?keys=${encodeURIComponent(keys.join(','))}`);
export const saveSettings = (patch: SettingsTree) => sendJson<SettingsUpdatePayload>('PUT', '/api/settings', patch);
export const reloadSettings = () => sendJson<SettingsReloadPayload>('POST', '/api/settings/reload');

/** Keep the running settings current while the page is open. */
export function useSettingsEvents(): void {
  const queries = useQueryClient();
  useEvents((event) => {
    if (event.type === 'settings.changed' || event.type === 'config.reloaded') void queries.invalidateQueries({ queryKey: settingsQuery.queryKey, exact: true });
  });
}
