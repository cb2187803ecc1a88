// /slots/new and /slots/<name>/edit: the slot form, sent as POST /api/slots or as the
// changed fields in PUT /api/slots/<name>; on success, the slot's detail.
import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { CreateSlotRequest, EditSlotRequest } from '../../../../src/protocol/slots.js';
import { ErrorNote } from '../../components/error-note.js';
import { Link, navigate, useTitle } from '../../router.js';
import { FileKeys } from './file-keys.js';
import { EMPTY_FORM, valuesOfDetail } from './form-values.js';
import { slotApi, slotDetailQuery } from './queries.js';
import { SlotForm } from './slot-form.js';
import { leaveNote } from './slot-notes.js';

const detailPath = (name: string) => `/slots/${encodeURIComponent(name)}`;

export function CreateSlot() {
  useTitle('new slot');
  const create = async (body: unknown) => {
    const created = await slotApi.create(body as CreateSlotRequest);
    const engine = created.provider_reason === 'given' ? `engine ${created.provider}` : `engine ${created.provider}: ${created.provider_reason}`;
    leaveNote(created.name, [`Created (${engine}).`, ...created.warnings.map((warning) => `Warning: ${warning}`)]);
    navigate(detailPath(created.name));
  };
  return (
    <section className="page">
      <p className="crumbs">
        <Link to="/slots">Slots</Link> /
      </p>
      <h1>New slot</h1>
      <SlotForm initial={null} start={EMPTY_FORM} slotFile="" submitLabel="Create" onSubmit={create}>
        <p className="muted">The file's other keys (workers, timeouts, TTS defaults, …) take their defaults; edit them in the file on the host.</p>
      </SlotForm>
    </section>
  );
}

export function EditSlot({ name }: { name: string }) {
  useTitle(`edit slot ${name}`);
  const detail = useQuery(slotDetailQuery(name));
  const initial = useMemo(() => (detail.data ? valuesOfDetail(detail.data) : null), [detail.data]);
  const edit = async (body: unknown) => {
    const result = await slotApi.edit(name, body as EditSlotRequest);
    const changed = result.changes.map((change) => `${change.key}: ${JSON.stringify(change.before)} → ${JSON.stringify(change.after)}`);
    leaveNote(name, [
      changed.length === 0 ? 'Nothing changed: the file already said so.' : `Saved ${changed.join('; ')}.`,
      ...(result.restart_required ? ['The running engine keeps its old settings until it restarts (Restart applies them).'] : []),
    ]);
    navigate(detailPath(name));
  };
  return (
    <section className="page">
      <p className="crumbs">
        <Link to="/slots">Slots</Link> / <Link to={detailPath(name)}>{name}</Link> /
      </p>
      <h1>Edit slot {name}</h1>
      {detail.error && <ErrorNote error={detail.error} />}
      {detail.isPending && <p className="muted">Loading…</p>}
      {detail.data && initial && (
        <SlotForm initial={initial} start={initial} slotFile={detail.data.file} submitLabel="Save" onSubmit={edit}>
          <FileKeys slot={detail.data} />
        </SlotForm>
      )}
    </section>
  );
}
