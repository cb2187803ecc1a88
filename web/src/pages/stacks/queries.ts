// What the Profiles & stacks page reads, one query each, and the events that make each stale.
// The wire types come from src/protocol (type-only); the list answers wrap them.
import { queryOptions, useQueryClient } from '@tanstack/react-query';
import type { ProfilePayload } from '../../../../src/protocol/profiles.js';
import type { StackActivePayload, StackApplyPayload, StackPayload } from '../../../../src/protocol/stacks.js';
import type { SvcEvent } from '../../../../src/protocol/events.js';
import { getJson, sendJson } from '../../api-error.js';
import { useEvents } from '../../live.js';

export const profilesQuery = queryOptions({
  queryKey: ['profiles'],
  queryFn: ({ signal }) => getJson<{ profiles: ProfilePayload[] }>('/api/profiles', signal),
});

export const stacksQuery = queryOptions({
  queryKey: ['stacks', 'list'],
  queryFn: ({ signal }) => getJson<{ stacks: StackPayload[] }>('/api/stacks', signal),
});

export const activeStackQuery = queryOptions({
  queryKey: ['stacks', 'active'],
  queryFn: ({ signal }) => getJson<StackActivePayload>('/api/stacks/active', signal),
});

/** The dry run of applying `slug`: a POST that writes nothing, read like a query. */
export const planQuery = (slug: string) =>
  queryOptions({
    queryKey: ['stacks', 'plan', slug],
    queryFn: ({ signal }) => sendJson<StackApplyPayload>('POST', `/api/stacks/${encodeURIComponent(slug)}/apply?dry_run=true`, undefined, signal),
    refetchOnWindowFocus: false,
    retry: false,
  });

/** Which queries an event makes stale (slot files changing moves the drift and the plans). */
export function staleKeysFor(event: Pick<SvcEvent, 'type'>): string[][] {
  const type = event.type;
  if (type.startsWith('profile.')) return [['profiles'], ['stacks', 'plan']];
  if (type === 'stack.created' || type === 'stack.updated' || type === 'stack.deleted') return [['stacks', 'list'], ['stacks', 'plan']];
  if (type === 'stack.apply.completed' || type === 'stack.apply.failed') return [['stacks', 'active'], ['profiles']];
  if (/^slot\.(created|edited|deleted)$/.test(type) || type === 'config.reloaded' || type === 'model.assigned') {
    return [['stacks', 'active'], ['profiles']];
  }
  return [];
}

/** Keep this page's queries fresh from the app's one event stream while it is mounted. */
export function useStackPageEvents(): void {
  const queries = useQueryClient();
  useEvents((event) => {
    for (const queryKey of staleKeysFor(event)) void queries.invalidateQueries({ queryKey });
  });
}

export const profilePath = (name: string) => `/api/profiles/${encodeURIComponent(name)}`;
export const stackPath = (slug: string) => `/api/stacks/${encodeURIComponent(slug)}`;
