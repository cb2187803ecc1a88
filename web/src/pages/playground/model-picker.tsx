// The model a tool sends to, from /v1/models (only those whose type fits the tool), with the
// state of the slot behind it: a model that is still loading, or stopped and started by the
// first request, says so before the user waits on it.
import { useQuery } from '@tanstack/react-query';
import { Field } from '../../components/field.js';
import { Link } from '../../router.js';
import { slotsQuery } from '../../queries.js';
import { SLOT_TYPE_OF_TOOL, type ModelOption, type Tool } from './model-kinds.js';

export function ModelPicker({ tool, options, value, onChange }: { tool: Tool; options: readonly ModelOption[]; value: string; onChange: (id: string) => void }) {
  const local = options.filter((o) => !o.remote);
  const remote = options.filter((o) => o.remote);
  const picked = options.find((o) => o.id === value);
  return (
    <>
      <Field label="Model" path={`${tool}-model`} hint={picked?.remote ? 'A remote endpoint’s model: svc cannot tell what it serves.' : undefined}>
        <select value={value} onChange={(event) => onChange(event.target.value)} data-testid={`${tool}-model`}>
          {local.length > 0 && (
            <optgroup label="svc slots">
              {local.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.label}
                </option>
              ))}
            </optgroup>
          )}
          {remote.length > 0 && (
            <optgroup label="remote endpoints">
              {remote.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.label}
                </option>
              ))}
            </optgroup>
          )}
        </select>
      </Field>
      {picked?.slot && <SlotNote tool={tool} slot={picked.slot} />}
    </>
  );
}

/** What a request to this slot will wait for, live (the slot list follows the event stream). */
function SlotNote({ tool, slot }: { tool: Tool; slot: string }) {
  const slots = useQuery(slotsQuery);
  const row = slots.data?.slots.find((s) => s.name === slot);
  if (!row || row.state === 'ready') return null;
  const busy = row.state === 'starting' || row.state === 'warming';
  return (
    <p className={busy ? 'warn-note' : 'muted'} data-testid={`${tool}-slot-note`} data-state={row.state} aria-live="polite">
      {busy && (
        <>
          Slot <strong>{row.name}</strong> is still loading its model ({row.state}): a request waits until it is ready.
        </>
      )}
      {row.state === 'stopped' && (
        <>
          Slot <strong>{row.name}</strong> is stopped: the first request starts it, and waits for the model to load.
        </>
      )}
      {row.state === 'stopping' && (
        <>
          Slot <strong>{row.name}</strong> is stopping.
        </>
      )}
      {row.state === 'error' && (
        <>
          Slot <strong>{row.name}</strong> failed{row.last_error && <>: <code>{row.last_error.code}</code> {row.last_error.message}</>}.
        </>
      )}
      {row.state === 'disabled' && (
        <>
          Slot <strong>{row.name}</strong> is disabled.
        </>
      )}{' '}
      <Link to={`/slots/${encodeURIComponent(row.name)}`}>Open the slot</Link>
    </p>
  );
}

/** What to say when no model of a tool's kind is served: which slot type would serve it. */
export function NoModels({ tool }: { tool: Tool }) {
  return (
    <p className="muted" data-testid={`${tool}-no-models`}>
      No model for this is configured: <code>/v1/models</code> lists none served by {articled(SLOT_TYPE_OF_TOOL[tool])} slot, and no remote
      endpoint. Create a slot of type <code>{SLOT_TYPE_OF_TOOL[tool]}</code> on the <Link to="/slots">Slots</Link> page (a stopped one is listed once it
      is loaded, or by its <code>svc/*</code> name), or add a remote endpoint in <code>upstreams.toml</code>.
    </p>
  );
}

const articled = (type: string) => `${/^(?:[aeio]|llm\b)/i.test(type) ? 'an' : 'a'} ${type}`;
