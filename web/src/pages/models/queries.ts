// The Models page's server state: the registry, the pull list and a search, with the events
// that make each stale. Pull progress itself comes from each running pull's SSE stream
// (pull-stream.ts), folded into the pull list's cache.
import { queryOptions, useQueryClient } from '@tanstack/react-query';
import type { ModelListPayload } from '../../../../src/protocol/models.js';
import type { PullListPayload, SearchPayload } from '../../../../src/protocol/pulls.js';
import type { SvcEvent } from '../../../../src/protocol/events.js';
import { getJson } from '../../api-error.js';
import { useEvents } from '../../live.js';

export const modelsQuery = queryOptions({ queryKey: ['models', 'list'], queryFn: ({ signal }) => getJson<ModelListPayload>('/api/models', signal) });
export const pullsQuery = queryOptions({ queryKey: ['models', 'pulls'], queryFn: ({ signal }) => getJson<PullListPayload>('/api/models/pulls', signal) });

export const searchQuery = (text: string) =>
  queryOptions({
    queryKey: ['models', 'search', text],
    queryFn: ({ signal }) => getJson<SearchPayload>(`/api/models/search?q=${encodeURIComponent(text)}&limit=20`, signal),
    enabled: text.trim() !== '',
    // The hub's listing does not change while a user looks at it; a new search is a new key.
    staleTime: 5 * 60_000,
  });

/** Events after which the registry is read again (a slot change moves `used_by`). */
const REGISTRY_CHANGES = /^(model\.(registered|removed|assigned)|pull\.completed|slot\.(created|deleted|edited)|config\.reloaded)$/;
/** Events that add a job or end one (progress in between comes from the job's own stream). */
const PULL_CHANGES = /^pull\.(queued|started|completed|failed|cancelled)$/;

export function useModelEvents(): void {
  const queries = useQueryClient();
  useEvents((event: SvcEvent) => {
    if (REGISTRY_CHANGES.test(event.type)) void queries.invalidateQueries({ queryKey: modelsQuery.queryKey });
    if (PULL_CHANGES.test(event.type)) void queries.invalidateQueries({ queryKey: pullsQuery.queryKey });
  });
}
