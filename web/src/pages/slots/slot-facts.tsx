// What a slot runs now (engine, model, port, memory, last error) and the command its next
// start runs, as GET /api/slots/<name> answers them.
import type { SlotDetailPayload } from '../../../../src/protocol/slots.js';
import { formatMb } from '../../format.js';

const when = (iso: string | null) => (iso === null ? '—' : new Date(iso).toLocaleString());

export function SlotFacts({ slot }: { slot: SlotDetailPayload }) {
  return (
    <>
      <dl className="facts" data-testid="slot-facts">
        <dt>type</dt>
        <dd>{slot.type}</dd>
        <dt>model</dt>
        <dd data-testid="slot-model">{slot.model || '—'}</dd>
        <dt>engine</dt>
        <dd>
          {slot.provider} on {slot.device}
          {slot.backend && ` (computes on ${slot.backend}${slot.gpu_layers ? `, ${slot.gpu_layers.offloaded}/${slot.gpu_layers.total ?? '?'} layers on a GPU` : ''})`}
        </dd>
        <dt>profile</dt>
        <dd>{slot.profile ?? <span className="muted">the model's or the device's default</span>}</dd>
        <dt>port</dt>
        <dd>{slot.port}</dd>
        <dt>enabled</dt>
        <dd data-testid="slot-enabled">{slot.enabled ? 'yes' : 'no (never started)'}</dd>
        <dt>pid</dt>
        <dd>{slot.pid ?? '—'}</dd>
        <dt>in flight</dt>
        <dd>{slot.in_flight}</dd>
        <dt>memory</dt>
        <dd>{slot.memory_mb === null ? '—' : formatMb(slot.memory_mb)}</dd>
        <dt>started</dt>
        <dd>{when(slot.started_at)}</dd>
        <dt>last used</dt>
        <dd>{when(slot.last_used_at)}</dd>
        <dt>idle timeout</dt>
        <dd>{slot.idle_timeout_s === 0 ? 'never evicted' : `${slot.idle_timeout_s} s`}</dd>
        <dt>restarts</dt>
        <dd>{slot.restarts}</dd>
        <dt>file</dt>
        <dd>
          <code>{slot.file}</code>
        </dd>
      </dl>
      {slot.warnings.map((warning) => (
        <p key={warning} className="warn-note">
          {warning}
        </p>
      ))}
      {slot.last_error && (
        <div className="error-note" data-testid="last-error">
          <code>{slot.last_error.code}</code> {slot.last_error.message} <span className="muted">({when(slot.last_error.at)})</span>
          {slot.last_error.stderr_tail && (
            <pre className="log" role="region" aria-label="the engine's last stderr lines" tabIndex={0}>
              {slot.last_error.stderr_tail}
            </pre>
          )}
        </div>
      )}
    </>
  );
}

export function LaunchFacts({ slot }: { slot: SlotDetailPayload }) {
  if (slot.launch_error) {
    return (
      <p className="error-note">
        The command cannot be built: <code>{slot.launch_error.code}</code> {slot.launch_error.message}
      </p>
    );
  }
  if (!slot.launch) return null;
  const env = Object.entries(slot.launch.env);
  return (
    <>
      <pre className="log command" data-testid="launch">
        {slot.launch.command_line}
      </pre>
      {env.length > 0 && (
        <p className="muted">
          with {env.map(([key, value]) => `${key}=${value}`).join(' ')}
        </p>
      )}
    </>
  );
}
