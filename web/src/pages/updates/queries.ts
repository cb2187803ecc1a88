// The Updates page's reads: where svc runs from (with the running job), the channel, one job,
// and the registry check, which runs only when asked (it contacts the npm registry).
import { queryOptions } from '@tanstack/react-query';
import type { UpdateChannel, UpdateCheckPayload, UpdateJob, UpdateStatePayload } from '../../../../src/protocol/updates.js';
import { getJson } from '../../api-error.js';

export const updateStateQuery = queryOptions({ queryKey: ['updates', 'state'], queryFn: ({ signal }) => getJson<UpdateStatePayload>('/api/updates/state', signal) });
export const channelQuery = queryOptions({ queryKey: ['updates', 'channel'], queryFn: ({ signal }) => getJson<{ channel: UpdateChannel }>('/api/updates/channel', signal) });
export const checkQuery = queryOptions({
  queryKey: ['updates', 'check'],
  queryFn: ({ signal }) => getJson<UpdateCheckPayload>('/api/updates/check', signal),
  // Asked for with the button; a registry that does not answer is shown, not retried.
  enabled: false,
  retry: false,
});
export const jobQuery = (id: string) => queryOptions({ queryKey: ['updates', 'job', id], queryFn: ({ signal }) => getJson<UpdateJob>(`/api/updates/status/${encodeURIComponent(id)}`, signal) });
