// One slot: state (live from slot.state), backend, model, port, in-flight, its tokens/s and
// TTFT sparklines (from metrics.slot), memory, and what went wrong last.
import type { SlotViewPayload } from '../../../src/protocol/slots.js';
import { useSlotSeries } from '../live.js';
import { Sparkline } from './sparkline.js';
import { formatMb } from '../format.js';

export function SlotCard({ slot }: { slot: SlotViewPayload }) {
  const series = useSlotSeries(slot.name);
  return (
    <article className="card slot" data-testid={`slot-${slot.name}`} data-state={slot.state}>
      <header>
        <h3>{slot.name}</h3>
        <span className={`state state-${slot.state}`} data-testid="slot-state">
          {slot.state}
        </span>
      </header>
      <dl>
        <dt>model</dt>
        <dd title={slot.model}>{slot.model || '—'}</dd>
        <dt>backend</dt>
        <dd>
          {slot.backend ?? slot.device}
          {slot.gpu_layers && ` · ${slot.gpu_layers.offloaded}/${slot.gpu_layers.total ?? '?'} layers`}
        </dd>
        <dt>port</dt>
        <dd>{slot.port}</dd>
        <dt>in flight</dt>
        <dd>{slot.in_flight}</dd>
        <dt>memory</dt>
        <dd>{slot.memory_mb === null ? '—' : formatMb(slot.memory_mb)}</dd>
      </dl>
      <Sparkline label="tokens/s" t={series.t} values={series.tokensPerSecond} unit="tok/s" />
      <Sparkline label="TTFT" t={series.t} values={series.ttftMs} unit="ms" />
      {slot.warnings.map((warning) => (
        <p key={warning} className="warn-note">
          {warning}
        </p>
      ))}
      {slot.last_error && (
        <p className="error-note">
          <code>{slot.last_error.code}</code> {slot.last_error.message}
        </p>
      )}
    </article>
  );
}
