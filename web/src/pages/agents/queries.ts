// The Agents page's reads: the agents, one agent, a job, its activity and log, and hermes's
// provision.json and personas. Each is read once and made stale by the `agent.*` events of
// the app's one stream (an install's steps arrive as agent.install.progress).
import { queryOptions, useQueryClient } from '@tanstack/react-query';
import type { AgentActivityPayload, AgentJob, AgentListPayload, AgentLogPayload, AgentView } from '../../../../src/protocol/agents.js';
import { getJson } from '../../api-error.js';
import { useEvents } from '../../live.js';

const ref = (name: string) => encodeURIComponent(name);

export interface PhaseRecordWire {
  status: 'ok' | 'skip' | 'fail' | 'repair_needed';
  reason?: string;
  fatal?: boolean;
  at: string;
}

/** provision.json as GET /api/agents/<name>/provision answers it (src/agents/hermes/types.ts). */
export interface ProvisionWire {
  started_at: string;
  completed_at: string;
  hermes_version: string | null;
  hermes_home: string;
  phases: Record<string, PhaseRecordWire | undefined>;
  errors: Array<{ phase: string; reason: string }>;
}

export interface PersonaListWire {
  agent: string;
  personas: Array<{ id: string; display_name: string; summary: string; active: boolean }>;
  active: string | null;
  count: number;
}

export const agentsQuery = queryOptions({ queryKey: ['agents', 'list'], queryFn: ({ signal }) => getJson<AgentListPayload>('/api/agents', signal) });
export const agentQuery = (name: string) => queryOptions({ queryKey: ['agents', 'one', name], queryFn: ({ signal }) => getJson<AgentView>(`/api/agents/${ref(name)}`, signal) });
export const jobQuery = (id: string) => queryOptions({ queryKey: ['agents', 'job', id], queryFn: ({ signal }) => getJson<{ job: AgentJob }>(`/api/agents/jobs/${ref(id)}`, signal) });
export const activityQuery = (name: string) =>
  queryOptions({ queryKey: ['agents', 'activity', name], queryFn: ({ signal }) => getJson<AgentActivityPayload>(`/api/agents/${ref(name)}/activity?limit=50`, signal) });
export const logQuery = (name: string) => queryOptions({ queryKey: ['agents', 'log', name], queryFn: ({ signal }) => getJson<AgentLogPayload>(`/api/agents/${ref(name)}/log`, signal) });
export const provisionQuery = (name: string) =>
  queryOptions({ queryKey: ['agents', 'provision', name], queryFn: ({ signal }) => getJson<ProvisionWire>(`/api/agents/${ref(name)}/provision`, signal), retry: false });
export const personasQuery = (name: string) =>
  queryOptions({ queryKey: ['agents', 'personas', name], queryFn: ({ signal }) => getJson<PersonaListWire>(`/api/agents/${ref(name)}/personas`, signal), retry: false });

/** Keep the page's reads current: every agent.* event makes the agents' reads stale. */
export function useAgentEvents(): void {
  const queries = useQueryClient();
  useEvents((event) => {
    if (!event.type.startsWith('agent.')) return;
    void queries.invalidateQueries({ queryKey: ['agents'] });
  });
}
