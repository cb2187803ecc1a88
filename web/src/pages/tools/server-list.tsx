// /tools: the approvals waiting, every installed server with its state live (bundled ones
// marked), installing one, and the tool calls as they happen.
import { useQuery } from '@tanstack/react-query';
import type { McpServerView } from '../../../../src/protocol/mcp.js';
import { ErrorNote } from '../../components/error-note.js';
import { Link, useTitle } from '../../router.js';
import { ApprovalsPanel } from './approvals-panel.js';
import { Catalog } from './catalog.js';
import { InstallForm } from './install-form.js';
import { serversQuery } from './queries.js';
import { ToolCalls } from './tool-calls.js';
import { DataTable } from '../../components/data-table.js';

function policyCounts(server: McpServerView): string {
  const gated = server.tool_details.filter((tool) => tool.policy === 'gated').length;
  const blocked = server.tool_details.filter((tool) => tool.policy === 'blocked').length;
  return [gated > 0 && `${gated} gated`, blocked > 0 && `${blocked} blocked`].filter(Boolean).join(', ');
}

function ServerRow({ server }: { server: McpServerView }) {
  const counts = policyCounts(server);
  return (
    <tr data-testid={`server-row-${server.id}`} data-state={server.state}>
      <td>
        <Link to={`/tools/${encodeURIComponent(server.id)}`}>{server.id}</Link>
        {server.bundled && <span className="tag" title="served by the gateway itself: it cannot be uninstalled">bundled</span>}
        {server.name && server.name !== server.id && <div className="muted">{server.name}</div>}
      </td>
      <td>
        <span className={`state state-${server.state}`} data-testid="server-state">
          {server.state}
        </span>
      </td>
      <td>{server.transport}</td>
      <td data-testid="server-tools">
        {server.tool_details.length}
        {counts && <span className="muted"> ({counts})</span>}
      </td>
      <td className="connect" title={server.connect_url}>
        <code>{server.connect_url || server.spec}</code>
      </td>
      <td>{server.last_error ? <span className="error-text">{server.last_error}</span> : <span className="muted">—</span>}</td>
    </tr>
  );
}

export function ServerList() {
  useTitle('Tool servers');
  const servers = useQuery(serversQuery);
  return (
    <section className="page tools-page">
      <h1>Tool servers</h1>
      <div className="stack">
        <ApprovalsPanel />
        <div className="card">
          <h2>Installed</h2>
          {servers.error && <ErrorNote error={servers.error} />}
          {servers.isPending && <p className="muted">Loading…</p>}
          {servers.data?.servers.length === 0 && <p className="muted">No tool servers yet: install one from a spec, a URL or the catalog below.</p>}
          {servers.data && servers.data.servers.length > 0 && (
            <DataTable columns={['Server', 'State', 'Transport', 'Tools', 'Runs', 'Last error']} testId="server-table">
              {servers.data.servers.map((server) => (
                <ServerRow key={server.id} server={server} />
              ))}
            </DataTable>
          )}
        </div>
        <div className="columns">
          <InstallForm />
          <ToolCalls />
        </div>
        <Catalog />
      </div>
    </section>
  );
}
