// /tools/<id>: one tool server. Its state moves live (mcp.state); its actions, what it runs,
// the last test, its tools with their policy, and its logs.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { McpServerView, McpTestPayload } from '../../../../src/protocol/mcp.js';
import { ErrorNote } from '../../components/error-note.js';
import { Link, useTitle } from '../../router.js';
import { serverQuery } from './queries.js';
import { ServerActions } from './server-actions.js';
import { ServerLogs } from './server-logs.js';
import { TestResult } from './test-result.js';
import { ToolPolicies } from './tool-policies.js';

function Facts({ server }: { server: McpServerView }) {
  const when = server.installed_at ? new Date(server.installed_at).toLocaleString() : null;
  return (
    <dl className="facts" data-testid="server-facts">
      <dt>transport</dt>
      <dd>{server.transport}</dd>
      <dt>from</dt>
      <dd title={server.spec}>
        <code>{server.spec || '—'}</code>
      </dd>
      <dt>runs</dt>
      <dd title={server.connect_url}>
        <code>{server.connect_url || '—'}</code>
      </dd>
      <dt>pid</dt>
      <dd data-testid="server-pid">{server.pid ?? '—'}</dd>
      <dt>restarts</dt>
      <dd>{server.restarts}</dd>
      <dt>version</dt>
      <dd>{server.server_version ?? '—'}</dd>
      <dt>resources · prompts</dt>
      <dd>
        {server.resources} · {server.prompts}
      </dd>
      <dt>enabled</dt>
      <dd>{server.enabled ? 'yes' : 'no: it does not start with the gateway, and its tools are not offered'}</dd>
      {when && (
        <>
          <dt>installed</dt>
          <dd>{when}</dd>
        </>
      )}
      {Object.keys(server.secrets).length > 0 && (
        <>
          <dt>secrets</dt>
          <dd>{Object.entries(server.secrets).map(([name, key]) => `${name} ← api.env ${key}`).join(', ')}</dd>
        </>
      )}
    </dl>
  );
}

export function ServerDetail({ id }: { id: string }) {
  useTitle(`Tool server ${id}`);
  const server = useQuery(serverQuery(id));
  const [tested, setTested] = useState<McpTestPayload | null>(null);
  return (
    <section className="page tools-page">
      <p className="crumbs">
        <Link to="/tools">Tool servers</Link> /
      </p>
      <div className="toolbar">
        <h1>{id}</h1>
        {server.data && (
          <span className={`state state-${server.data.state}`} data-testid="detail-state">
            {server.data.state}
          </span>
        )}
        {server.data?.bundled && <span className="tag">bundled</span>}
      </div>
      {server.error && <ErrorNote error={server.error} />}
      {server.isPending && <p className="muted">Loading…</p>}
      {server.data && (
        <div className="stack">
          {server.data.description && <p>{server.data.description}</p>}
          <ServerActions server={server.data} onTested={setTested} />
          {server.data.last_error && (
            <p className="error-note" data-testid="server-last-error">
              {server.data.last_error}
            </p>
          )}
          <div className="columns">
            <div className="card">
              <h2>Now</h2>
              <Facts server={server.data} />
            </div>
            {tested && <TestResult result={tested} />}
          </div>
          <ToolPolicies server={server.data} />
          {!server.data.bundled && <ServerLogs id={id} />}
        </div>
      )}
    </section>
  );
}
