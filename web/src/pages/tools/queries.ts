// The Tool servers page's server state: the servers, one server, its logs and the catalog,
// each read once and made stale by the events that change it. A server's state moves in the
// cache the moment its mcp.state event arrives; the rest of its view (pid, tools, last
// error) is read again once the move settles.
import { queryOptions, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { McpCatalogPayload, McpLogsPayload, McpServerListPayload, McpServerView, McpState } from '../../../../src/protocol/mcp.js';
import type { SvcEvent } from '../../../../src/protocol/events.js';
import { getJson } from '../../api-error.js';
import { useEvents } from '../../live.js';

const ref = (id: string) => encodeURIComponent(id);

export const serversQuery = queryOptions({ queryKey: ['mcp', 'servers'], queryFn: ({ signal }) => getJson<McpServerListPayload>('/api/mcp/servers', signal) });
export const serverQuery = (id: string) =>
  queryOptions({ queryKey: ['mcp', 'server', id], queryFn: ({ signal }) => getJson<McpServerView>(`/api/mcp/servers/${ref(id)}`, signal) });
export const logsQuery = (id: string) =>
  queryOptions({ queryKey: ['mcp', 'logs', id], queryFn: ({ signal }) => getJson<McpLogsPayload>(`/api/mcp/${ref(id)}/logs`, signal) });
export const catalogQuery = queryOptions({
  queryKey: ['mcp', 'catalog'],
  queryFn: ({ signal }) => getJson<McpCatalogPayload>('/api/mcp/catalog', signal),
  // The list changes only with a refresh (asked for with its button) or an install (an event).
  staleTime: 5 * 60_000,
});

/** States a server passes through on its way somewhere: its full view is read when it arrives. */
const MOVING: ReadonlySet<McpState> = new Set(['starting', 'stopping']);
/** Events after which the list, the server's view and the catalog's installed marks are read again. */
const RECORD_CHANGES = /^mcp\.(installed|uninstalled|updated)$/;

function patchState(queries: QueryClient, server: string, state: McpState, pid: number | null): void {
  queries.setQueryData(serversQuery.queryKey, (old) => old && { ...old, servers: old.servers.map((row) => (row.id === server ? { ...row, state, pid } : row)) });
  queries.setQueryData(serverQuery(server).queryKey, (old) => old && { ...old, state, pid });
}

function serverOf(event: SvcEvent): string | null {
  const data = event.data as { server?: unknown };
  return typeof data.server === 'string' ? data.server : null;
}

/** Keep the page's reads current from the app's one event stream. */
export function useToolServerEvents(): void {
  const queries = useQueryClient();
  useEvents((event) => {
    if (event.type === 'mcp.state') {
      patchState(queries, event.data.server, event.data.to, event.data.pid);
      if (!MOVING.has(event.data.to)) {
        void queries.invalidateQueries({ queryKey: serversQuery.queryKey });
        void queries.invalidateQueries({ queryKey: serverQuery(event.data.server).queryKey });
        void queries.invalidateQueries({ queryKey: logsQuery(event.data.server).queryKey });
      }
    } else if (RECORD_CHANGES.test(event.type)) {
      const server = serverOf(event);
      void queries.invalidateQueries({ queryKey: serversQuery.queryKey });
      void queries.invalidateQueries({ queryKey: catalogQuery.queryKey });
      if (server !== null) void queries.invalidateQueries({ queryKey: serverQuery(server).queryKey });
    }
  });
}
