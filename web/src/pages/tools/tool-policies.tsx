// A server's tools as it lists them (tools/list), each with its policy: allow, gated (waits in
// the approvals queue) or blocked (never offered). Edits are kept on the page until saved;
// the confirmation lists each change, then PATCH /api/mcp/<id>/tools writes the three lists.
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { TOOL_POLICIES, type McpServerView, type McpToolView, type ToolPolicy } from '../../../../src/protocol/mcp.js';
import { useAccess } from '../../access.js';
import { Confirm } from '../../components/confirm.js';
import { mcpApi } from './mcp-api.js';
import { effectiveEdits, listsAfter, POLICY_WORDS, policyChanges, type PolicyEdits } from './policy.js';
import { serverQuery, serversQuery } from './queries.js';
import { DataTable } from '../../components/data-table.js';

interface ToolRowProps {
  tool: McpToolView;
  /** The policy edited on the page and not saved yet, if any. */
  edited: ToolPolicy | undefined;
  /** Why this caller may not change it (undefined: it may). */
  deniedWhy: string | undefined;
  onEdit: (policy: ToolPolicy) => void;
}

function ToolRow({ tool, edited, deniedWhy, onEdit }: ToolRowProps) {
  const policy = edited ?? tool.policy;
  return (
    <tr data-testid={`tool-${tool.name}`} data-policy={tool.policy}>
      <td>
        <code>{tool.name}</code>
        {tool.read_only && <span className="tag">read only</span>}
        {tool.destructive && <span className="tag tag-bad">destructive</span>}
      </td>
      <td className="wrap">{tool.description || <span className="muted">—</span>}</td>
      <td>
        <select
          value={policy}
          disabled={deniedWhy !== undefined}
          title={deniedWhy ?? POLICY_WORDS[policy]}
          aria-label={`policy of ${tool.name}`}
          className={edited ? 'edited' : undefined}
          onChange={(e) => onEdit(e.target.value as ToolPolicy)}
          data-testid="tool-policy"
        >
          {TOOL_POLICIES.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </td>
    </tr>
  );
}

export function ToolPolicies({ server }: { server: McpServerView }) {
  const queries = useQueryClient();
  const access = useAccess();
  const [edits, setEdits] = useState<PolicyEdits>({});
  const [confirming, setConfirming] = useState(false);
  const tools = server.tool_details;
  const changed = effectiveEdits(tools, edits);
  const lines = policyChanges(tools, changed);
  const save = async () => {
    await mcpApi.patchTools(server.id, listsAfter(server.tools, changed));
    setEdits({});
    await Promise.all([queries.invalidateQueries({ queryKey: serverQuery(server.id).queryKey }), queries.invalidateQueries({ queryKey: serversQuery.queryKey })]);
  };
  const denied = !access.can('write');
  return (
    <div className="card" data-testid="tool-policies">
      <div className="toolbar">
        <h2>Tools</h2>
        <span className="muted">
          {tools.length} listed by the server; a tool no list names is <strong>{server.tools.default}</strong>
        </span>
      </div>
      {tools.length === 0 ? (
        <p className="muted">{server.state === 'ready' ? 'The server lists no tools.' : 'No tools read yet: they are read from the server once it is ready.'}</p>
      ) : (
        <DataTable columns={['Tool', 'What it does', 'Policy']}>
          {tools.map((tool) => (
            <ToolRow key={tool.name} tool={tool} edited={changed[tool.name]} deniedWhy={access.why('write')} onEdit={(policy) => setEdits((old) => ({ ...old, [tool.name]: policy }))} />
          ))}
        </DataTable>
      )}
      <div className="actions">
        {lines.length > 0 && (
          <button type="button" onClick={() => setEdits({})}>
            Discard edits
          </button>
        )}
        <button type="button" className="primary" disabled={lines.length === 0 || denied} title={access.why('write')} onClick={() => setConfirming(true)} data-testid="save-policies">
          {lines.length === 0 ? 'Save policies' : `Save ${lines.length} change${lines.length === 1 ? '' : 's'}…`}
        </button>
      </div>
      {confirming && (
        <Confirm
          title={`Change tool policies of ${server.id}?`}
          action="Save"
          danger={false}
          onConfirm={save}
          onClose={() => setConfirming(false)}
          changes={
            <ul data-testid="confirm-changes">
              {lines.map((line) => (
                <li key={line}>{line}</li>
              ))}
              <li className="muted">Written to mcp-servers/{server.id}.toml; calls from then on follow it.</li>
            </ul>
          }
        />
      )}
    </div>
  );
}
