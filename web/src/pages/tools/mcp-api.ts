// The writes of the Tool servers page, one function each, over the routes of docs/api.md
// ("Tool servers (MCP)", "Approvals"). Failures throw the gateway's ApiError.
import type { ApprovalEntry, McpCatalogPayload, McpConfigPatch, McpInstallRequest, McpServerView, McpTestPayload, ToolPolicyLists } from '../../../../src/protocol/mcp.js';
import { sendJson } from '../../api-error.js';

const ref = (id: string) => encodeURIComponent(id);

export type RunAction = 'start' | 'stop' | 'restart';

export const mcpApi = {
  install: (body: McpInstallRequest) => sendJson<McpServerView>('POST', '/api/mcp/install', body),
  uninstall: (id: string) => sendJson<unknown>('DELETE', `/api/mcp/${ref(id)}`),
  run: (id: string, action: RunAction) => sendJson<unknown>('POST', `/api/mcp/${ref(id)}/${action}`),
  test: (id: string) => sendJson<McpTestPayload>('POST', `/api/mcp/${ref(id)}/test`),
  patchConfig: (id: string, patch: McpConfigPatch) => sendJson<unknown>('PATCH', `/api/mcp/${ref(id)}/config`, patch),
  patchTools: (id: string, lists: Pick<ToolPolicyLists, 'allow' | 'gated' | 'blocked'>) => sendJson<unknown>('PATCH', `/api/mcp/${ref(id)}/tools`, lists),
  refreshCatalog: () => sendJson<McpCatalogPayload>('POST', '/api/mcp/catalog/refresh'),
  decide: (id: string, decision: 'approve' | 'deny') => sendJson<{ approval: ApprovalEntry }>('POST', `/api/agent/approvals/${ref(id)}/${decision}`),
};
