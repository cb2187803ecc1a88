// The writes of the Agents page, one function each, over the routes of docs/api.md ("Agents",
// "hermes provisioning and personas"). Failures throw the gateway's ApiError; an uninstall
// that left something is a 207 whose body is an error envelope, thrown as one too.
import type { AgentInstallRequest, AgentJob, AgentUninstallPayload } from '../../../../src/protocol/agents.js';
import { ApiError, sendJson } from '../../api-error.js';

const ref = (name: string) => encodeURIComponent(name);

export interface PersonaActivation {
  persona_id: string;
  display_name: string;
  hot_reload: { ok: boolean; error: string | null; url: string };
}

type Envelope = { error?: { code: string; message: string; details?: Record<string, unknown> } };

export const agentsApi = {
  install: (body: Partial<AgentInstallRequest> & { name: string }) => sendJson<{ job: AgentJob }>('POST', '/api/agents/install', body),
  upgrade: (name: string, to: string | undefined) => sendJson<{ job: AgentJob }>('POST', `/api/agents/${ref(name)}/upgrade`, to ? { to } : {}),
  async uninstall(name: string, purge: boolean): Promise<AgentUninstallPayload> {
    const answer = await sendJson<AgentUninstallPayload & Envelope>('DELETE', `/api/agents/${ref(name)}${purge ? '?purge=true' : ''}`);
    // 207 agent.uninstall_incomplete: uninstalled, but details.residual lists what is left.
    if (answer.error) throw new ApiError(answer.error.code, answer.error.message, answer.error.details ?? {}, 207);
    return answer;
  },
  activate: (agent: string, persona: string) => sendJson<PersonaActivation>('POST', `/api/agents/${ref(agent)}/personas/${ref(persona)}/activate`, {}),
};
