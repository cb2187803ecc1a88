// The tool calls as they happen (mcp.tool.* events from the one event stream since the page
// opened): who called which tool, how it went and how long it took.
import { useState } from 'react';
import type { McpToolEventData } from '../../../../src/protocol/mcp.js';
import { useEvents } from '../../live.js';

const KEPT = 20;

interface Call extends McpToolEventData {
  seq: number;
  ts: string;
}

export function ToolCalls() {
  const [calls, setCalls] = useState<Call[]>([]);
  useEvents((event) => {
    if (!event.type.startsWith('mcp.tool.')) return;
    const data = event.data as McpToolEventData;
    setCalls((old) => [{ ...data, seq: event.id, ts: event.ts }, ...old].slice(0, KEPT));
  });
  return (
    <div className="card" data-testid="tool-calls">
      <h2>Tool calls</h2>
      {calls.length === 0 ? (
        <p className="muted">None since this page opened: each call through the omni loop or /mcp shows here as it happens.</p>
      ) : (
        <ul className="calls" aria-live="polite">
          {calls.map((call) => (
            <li key={call.seq} data-outcome={call.outcome}>
              <time dateTime={call.ts}>{new Date(call.ts).toLocaleTimeString()}</time> <code>{`${call.server}__${call.tool}`}</code>{' '}
              <span className={`outcome outcome-${call.outcome}`}>{call.outcome}</span>
              {call.ms !== null && <span className="muted"> {call.ms} ms</span>}
              <span className="muted"> · {call.client}</span>
              {call.error && <div className="error-text">{call.error}</div>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
