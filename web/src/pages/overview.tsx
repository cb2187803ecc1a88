// The Overview: every slot as a card, the host's memory and devices, the gateway's version
// and uptime, the latest warnings and errors (each once: problem-echoes.ts). All live from
// the event stream (live.tsx).
import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { hardwareQuery, problemsQuery, slotsQuery, statusQuery } from '../queries.js';
import { useTitle } from '../router.js';
import { SlotCard } from '../components/slot-card.js';
import { ErrorNote } from '../components/error-note.js';
import { formatDuration, formatMb } from '../format.js';
import { withoutEchoes } from './problem-echoes.js';

/** Seconds since the gateway started, counted on from its own figure (a display clock, not a poll). */
function useUptime(startedAt: string | undefined): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return startedAt === undefined ? null : (now - Date.parse(startedAt)) / 1000;
}

function Gateway() {
  const status = useQuery(statusQuery);
  const uptime = useUptime(status.data?.started_at);
  if (status.error) return <ErrorNote error={status.error} />;
  if (!status.data) return <p className="muted">Loading…</p>;
  return (
    <dl className="facts" data-testid="gateway" data-started-at={status.data.started_at}>
      <dt>version</dt>
      <dd data-testid="version">{status.data.version}</dd>
      <dt>uptime</dt>
      <dd>{uptime === null ? '—' : formatDuration(uptime)}</dd>
      {status.data.config_warnings.length > 0 && <dt>config</dt>}
      {status.data.config_warnings.map((warning) => (
        <dd key={warning} className="warn-note">
          {warning}
        </dd>
      ))}
    </dl>
  );
}

function Host() {
  const hardware = useQuery(hardwareQuery);
  if (hardware.error) return <ErrorNote error={hardware.error} />;
  if (!hardware.data) return <p className="muted">Loading…</p>;
  const { host, probe } = hardware.data;
  const used = host.mem_total_mb - host.mem_available_mb;
  return (
    <dl className="facts" data-testid="host">
      <dt>host</dt>
      <dd>
        {host.hostname} · {host.cpu_count} × {host.cpu_model}
      </dd>
      <dt>memory</dt>
      <dd>
        <meter min={0} max={host.mem_total_mb} value={used} /> {formatMb(used)} of {formatMb(host.mem_total_mb)} used
      </dd>
      <dt>devices</dt>
      {probe === null && <dd className="muted">not probed yet (svc probe)</dd>}
      {probe?.gpus.map((gpu) => (
        <dd key={gpu.card}>
          {gpu.card}: {gpu.vendor_name} {gpu.driver ?? ''} {gpu.vram_mb !== null && `· ${formatMb(gpu.vram_mb)} VRAM`}
        </dd>
      ))}
      {probe?.npus.map((npu) => <dd key={npu.name}>{npu.name}</dd>)}
      {probe && probe.gpus.length + probe.npus.length === 0 && <dd className="muted">CPU only</dd>}
    </dl>
  );
}

function Problems() {
  const problems = useQuery(problemsQuery);
  if (problems.error) return <ErrorNote error={problems.error} />;
  const latest = withoutEchoes(problems.data?.events ?? []).slice(-10).reverse();
  if (problems.data && latest.length === 0) return <p className="muted">No warnings or errors.</p>;
  return (
    <ul className="problems" data-testid="problems">
      {latest.map((event) => (
        <li key={`${event.id}-${event.ts}`} className={`sev-${event.severity}`}>
          <time dateTime={event.ts}>{new Date(event.ts).toLocaleTimeString()}</time> <span className="source">{event.source}</span> {event.message}
        </li>
      ))}
    </ul>
  );
}

export function Overview() {
  useTitle('Overview');
  const slots = useQuery(slotsQuery);
  return (
    <section className="page">
      <h1>Overview</h1>
      <h2>Slots</h2>
      {slots.error && <ErrorNote error={slots.error} />}
      {slots.data?.slots.length === 0 && <p className="muted">No slots yet (svc slot create).</p>}
      <div className="cards">
        {slots.data?.slots.map((slot) => <SlotCard key={slot.name} slot={slot} />)}
      </div>
      <div className="columns">
        <div className="card">
          <h2>Gateway</h2>
          <Gateway />
        </div>
        <div className="card">
          <h2>Host</h2>
          <Host />
        </div>
      </div>
      <div className="card">
        <h2>Latest warnings and errors</h2>
        <Problems />
      </div>
    </section>
  );
}
