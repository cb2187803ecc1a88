// /slots: every slot with its live state (the shared slot list, patched by the event stream),
// each row linking to its detail, and the "New slot" action.
import { useQuery } from '@tanstack/react-query';
import { useAccess } from '../../access.js';
import { ErrorNote } from '../../components/error-note.js';
import { slotsQuery } from '../../queries.js';
import { Link, navigate, useTitle } from '../../router.js';
import { DataTable } from '../../components/data-table.js';

export function SlotList() {
  useTitle('Slots');
  const slots = useQuery(slotsQuery);
  const access = useAccess();
  return (
    <section className="page">
      <div className="toolbar slots-head">
        <h1>Slots</h1>
        <button type="button" className="primary" onClick={() => navigate('/slots/new')} disabled={!access.can('write')} title={access.why('write')} data-testid="new-slot">
          New slot
        </button>
      </div>
      {slots.error && <ErrorNote error={slots.error} />}
      {slots.data?.slots.length === 0 && <p className="muted">No slots yet: a slot runs one engine on one port serving one model. Create one with “New slot”.</p>}
      {slots.data && slots.data.slots.length > 0 && (
        <DataTable columns={['Name', 'State', 'Type', 'Engine · backend', 'Model', 'Port', 'Device', 'In flight']} testId="slot-table">
          {slots.data.slots.map((slot) => (
            <tr key={slot.name} data-testid={`slot-row-${slot.name}`} data-state={slot.state}>
              <td>
                <Link to={`/slots/${encodeURIComponent(slot.name)}`}>{slot.name}</Link>
              </td>
              <td>
                <span className={`state state-${slot.state}`}>{slot.state}</span>
              </td>
              <td>{slot.type}</td>
              <td>
                {slot.provider}
                {slot.backend && ` · ${slot.backend}`}
              </td>
              <td>{slot.model || '—'}</td>
              <td>{slot.port}</td>
              <td>{slot.device}</td>
              <td>{slot.in_flight}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {slots.isPending && <p className="muted">Loading…</p>}
    </section>
  );
}
