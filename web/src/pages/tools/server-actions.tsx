// A server's actions: start, stop, restart, test, enable or disable, uninstall. The state
// moves live meanwhile (mcp.state). Disable and uninstall say what they change first. A
// bundled server is the gateway's own: it runs while the gateway does and cannot be
// uninstalled, so only test applies; without write access every button says why it is off.
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { McpServerView, McpTestPayload } from '../../../../src/protocol/mcp.js';
import { useAccess } from '../../access.js';
import { Confirm } from '../../components/confirm.js';
import { ErrorNote } from '../../components/error-note.js';
import { navigate } from '../../router.js';
import { mcpApi, type RunAction } from './mcp-api.js';
import { serverQuery, serversQuery } from './queries.js';

const BUNDLED = 'a bundled server is served by the gateway itself: it runs while the gateway does';
const RUN: Array<{ action: RunAction; label: string; busy: string }> = [
  { action: 'start', label: 'Start', busy: 'Starting…' },
  { action: 'stop', label: 'Stop', busy: 'Stopping…' },
  { action: 'restart', label: 'Restart', busy: 'Restarting…' },
];

function uninstallChanges(server: McpServerView): string[] {
  return [
    `The record mcp-servers/${server.id}.toml goes, with what was installed for it (an npm package's folder).`,
    server.pid !== null ? `The running server (pid ${server.pid}) is stopped.` : 'It is not running.',
    `Its ${server.tool_details.length} tools are no longer offered; calls to them fail.`,
  ];
}

const disableChanges = (server: McpServerView): string[] => [
  `enabled = false in mcp-servers/${server.id}.toml: it no longer starts with the gateway or on demand.`,
  server.pid !== null ? `The running server (pid ${server.pid}) is stopped.` : 'It is not running.',
  'Its tools are no longer offered until you enable it again.',
];

export function ServerActions({ server, onTested }: { server: McpServerView; onTested: (result: McpTestPayload) => void }) {
  const queries = useQueryClient();
  const access = useAccess();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [confirming, setConfirming] = useState<'uninstall' | 'disable' | null>(null);
  const reread = () => Promise.all([queries.invalidateQueries({ queryKey: serverQuery(server.id).queryKey }), queries.invalidateQueries({ queryKey: serversQuery.queryKey })]);
  const run = async (label: string, operation: () => Promise<unknown>, rethrow = false) => {
    setBusy(label);
    setError(null);
    try {
      await operation();
      await reread();
    } catch (failure) {
      if (rethrow) throw failure;
      setError(failure);
    } finally {
      setBusy(null);
    }
  };
  const writeWhy = access.why('write');
  const ownWhy = writeWhy ?? (server.bundled ? BUNDLED : undefined);
  const locked = busy !== null;
  const uninstall = async () => {
    await mcpApi.uninstall(server.id);
    void queries.invalidateQueries({ queryKey: serversQuery.queryKey });
    navigate('/tools');
  };
  return (
    <div className="toolbar" data-testid="server-actions">
      {RUN.map(({ action, label, busy: busyLabel }) => (
        <button key={action} type="button" disabled={locked || ownWhy !== undefined} title={ownWhy} onClick={() => void run(label, () => mcpApi.run(server.id, action))} data-testid={`action-${action}`}>
          {busy === label ? busyLabel : label}
        </button>
      ))}
      <button type="button" disabled={locked || writeWhy !== undefined} title={writeWhy} onClick={() => void run('Test', async () => onTested(await mcpApi.test(server.id)))} data-testid="action-test">
        {busy === 'Test' ? 'Testing…' : 'Test'}
      </button>
      {server.enabled ? (
        <button type="button" disabled={locked || ownWhy !== undefined} title={ownWhy} onClick={() => setConfirming('disable')} data-testid="action-disable">
          Disable
        </button>
      ) : (
        <button type="button" disabled={locked || ownWhy !== undefined} title={ownWhy} onClick={() => void run('Enable', () => mcpApi.patchConfig(server.id, { enabled: true }))} data-testid="action-enable">
          {busy === 'Enable' ? 'Enabling…' : 'Enable'}
        </button>
      )}
      {!server.bundled && (
        <button type="button" className="danger" disabled={locked || writeWhy !== undefined} title={writeWhy} onClick={() => setConfirming('uninstall')} data-testid="action-uninstall">
          Uninstall
        </button>
      )}
      {error !== null && <ErrorNote error={error} />}
      {confirming === 'uninstall' && (
        <Confirm title={`Uninstall ${server.id}?`} action="Uninstall" onConfirm={() => run('Uninstall', uninstall, true)} onClose={() => setConfirming(null)} changes={<Lines lines={uninstallChanges(server)} />} />
      )}
      {confirming === 'disable' && (
        <Confirm
          title={`Disable ${server.id}?`}
          action="Disable"
          onConfirm={() => run('Disable', () => mcpApi.patchConfig(server.id, { enabled: false }), true)}
          onClose={() => setConfirming(null)}
          changes={<Lines lines={disableChanges(server)} />}
        />
      )}
    </div>
  );
}

function Lines({ lines }: { lines: string[] }) {
  return (
    <ul data-testid="confirm-changes">
      {lines.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}
