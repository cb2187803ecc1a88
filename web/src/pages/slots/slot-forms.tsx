// /slots/new and /slots/<name>/edit: the slot form, sent as POST /api/slots or as the
// changed fields in PUT /api/slots/<name>; on success, the slot's detail.
import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { CreateSlotRequest, EditSlotRequest } from '../../../../src/protocol/slots.js';
import { ErrorNote } from '../../components/error-note.js';
import { Link, navigate, useTitle } from '../../router.js';
import { fileValuesOf } from './file-fields.js';
import { EMPTY_FORM, valuesOfDetail } from './form-values.js';
import { slotApi, slotDetailQuery } from './queries.js';
import { SlotForm } from './slot-form.js';
import { FILE_CONTROLS } from './use-slot-form.js';

/** A new slot's file keys start at their defaults. */
const FILE_DEFAULTS = fileValuesOf(FILE_CONTROLS, null);
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
      <SlotForm initial={null} start={EMPTY_FORM} fileStart={FILE_DEFAULTS} slotFile="" submitLabel="Create" onSubmit={create} />
    </section>
  );
}

export function EditSlot({ name }: { name: string }) {
  useTitle(`edit slot ${name}`);
  // The form starts from the file as it is now, not from a detail cached before the last change.
  const detail = useQuery({ ...slotDetailQuery(name), refetchOnMount: 'always' });
  const fresh = detail.isFetchedAfterMount;
  const initial = useMemo(() => (detail.data ? valuesOfDetail(detail.data) : null), [detail.data]);
  const fileStart = useMemo(() => (detail.data ? fileValuesOf(FILE_CONTROLS, detail.data.config) : null), [detail.data]);
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
      {!fresh && !detail.error && <p className="muted">Loading…</p>}
      {fresh && detail.data && initial && fileStart && <SlotForm initial={initial} start={initial} fileStart={fileStart} slotFile={detail.data.file} submitLabel="Save" onSubmit={edit} />}
    </section>
  );
}
