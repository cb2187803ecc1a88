// The Memory page's reads and writes over /api/memory (docs/api.md "Memory"). The dashboard
// writes as the agent `dashboard` (X-Svc-Agent), so a private item added here is the
// dashboard's own; reads see the shared items and the dashboard's private ones.
import { queryOptions } from '@tanstack/react-query';
import type { MemoryAddAnswer, MemoryBankView, MemoryDeleteAnswer, MemoryEngineView, MemoryItem } from '../../../../src/protocol/memory.js';
import { ApiError, errorFromResponse, getJson } from '../../api-error.js';

export const DASHBOARD_AGENT = 'dashboard';

export const banksQuery = queryOptions({
  queryKey: ['memory', 'banks'],
  queryFn: ({ signal }) => getJson<{ banks: MemoryBankView[]; count: number }>('/api/memory/banks', signal),
  // Listing banks opens the embedded database (and resets its idle timer): asked on the page's
  // first view and after a change (the forms invalidate it), not again on each window focus.
  staleTime: 5 * 60_000,
  refetchOnWindowFocus: false,
});
export const engineQuery = queryOptions({
  queryKey: ['memory', 'engine'],
  queryFn: ({ signal }) => getJson<MemoryEngineView>('/api/memory/engine', signal),
});

/** GET /api/memory/banks/<id>/graph/subgraph's nodes and edges (docs/api.md "Memory graph"). */
export interface GraphNode { id: string; kind: string; label: string; type: string; weight: number }
export interface GraphEdge { source: string; target: string; type: string; weight: number }
export interface Subgraph { nodes: GraphNode[]; edges: GraphEdge[]; truncated?: boolean }

/** null: the gateway has no graph for banks (404), which the view says plainly. */
export async function fetchSubgraph(bank: string, kind: 'memories' | 'entities', signal?: AbortSignal): Promise<Subgraph | null> {
  try {
    const answer = await getJson<Partial<Subgraph>>(`/api/memory/banks/${encodeURIComponent(bank)}/graph/subgraph?kind=${kind}&mode=top&limit=100`, signal);
    return { nodes: answer.nodes ?? [], edges: answer.edges ?? [], truncated: answer.truncated ?? false };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && error.code !== 'memory.bank_not_found') return null;
    throw error;
  }
}

async function send<T>(path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', 'x-svc-agent': DASHBOARD_AGENT, ...headers },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError('network.unreachable', `the gateway did not answer: ${(error as Error).message}`);
  }
  if (!response.ok) throw await errorFromResponse(response);
  return (await response.json()) as T;
}

export interface AddInput { text: string; tags: string[]; dataset?: string; private: boolean }

export const memoryApi = {
  add: (input: AddInput) => send<MemoryAddAnswer>('/api/memory/add', { text: input.text, ...(input.tags.length > 0 && { tags: input.tags }), ...(input.dataset && { dataset: input.dataset }) }, input.private ? { 'x-svc-private': 'true' } : {}),
  search: (query: string) => send<{ items: MemoryItem[] }>('/api/memory/search', { query, limit: 20 }),
  recall: (query: string) => send<{ items: MemoryItem[]; rerank: string }>('/api/memory/recall', { query }),
  delete: (ids: string[]) => send<MemoryDeleteAnswer>('/api/memory/delete', { ids }),
};
