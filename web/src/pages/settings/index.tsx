// Settings: svc.toml as a form generated from GET /api/settings/schema, filled from
// GET /api/settings. Edits are checked as typed; Save reads the apply plan of exactly the
// changed keys and shows it in a confirm dialog, then sends one deep-merged PUT of only
// what changed. The server's problems land beside their keys. Reload re-reads the files.
import { useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { SettingsUpdatePayload } from '../../../../src/protocol/settings-wire.js';
import { HOST_ONLY_SETTINGS } from '../../../../src/protocol/host-only.js';
import { useAccess } from '../../access.js';
import { ErrorNote } from '../../components/error-note.js';
import { Confirm } from '../../components/confirm.js';
import { problemsOfError, type Problems } from '../../field-problems.js';
import { slotsQuery } from '../../queries.js';
import { useTitle } from '../../router.js';
import type { Draft } from './check.js';
import { changesOf, patchOf, readOnlyReason } from './edits.js';
import { groupSettings } from './groups.js';
import { readApplyPlan, saveSettings, schemaQuery, settingsQuery, useSettingsEvents } from './queries.js';
import { SavePlan, type PlannedSave } from './save-plan.js';
import { problemOf, SettingsGroups } from './settings-groups.js';
import { ReloadButton, SavedNote } from './status-notes.js';
import './settings.css';

const RUNNING = new Set(['starting', 'warming', 'ready']);

export default function SettingsPage() {
  useTitle('Settings');
  useSettingsEvents();
  const queries = useQueryClient();
  const access = useAccess();
  const schema = useQuery(schemaQuery);
  const current = useQuery(settingsQuery);
  const slots = useQuery(slotsQuery);
  const [drafts, setDrafts] = useState<Record<string, Draft>>({});
  const [serverProblems, setServerProblems] = useState<Problems>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [planned, setPlanned] = useState<PlannedSave | null>(null);
  const [saved, setSaved] = useState<SettingsUpdatePayload | null>(null);

  const keys = useMemo(() => schema.data?.keys ?? [], [schema.data]);
  const groups = useMemo(() => groupSettings(keys), [keys]);
  const changes = useMemo(() => changesOf(keys, drafts, current.data?.settings), [keys, drafts, current.data]);
  const invalid = keys.filter((d) => drafts[d.key] !== undefined && problemOf(d, drafts[d.key], {}) !== undefined).length;
  const runningSlots = (slots.data?.slots ?? []).filter((s) => RUNNING.has(s.state)).map((s) => s.name);
  const permissions = { hostAuthority: access.hostAuthority, writeRefused: access.why('write'), hostOnly: HOST_ONLY_SETTINGS };

  const onDraft = (key: string, draft: Draft) => {
    setDrafts((old) => ({ ...old, [key]: draft }));
    setServerProblems(({ [key]: _edited, ...rest }) => rest);
  };
  const planSave = async () => {
    setFailure(null);
    try {
      setPlanned({ changes, plan: await readApplyPlan(changes.map((c) => c.key)) });
    } catch (error) {
      setFailure(error);
    }
  };
  const save = async (what: PlannedSave) => {
    try {
      const answer = await saveSettings(patchOf(what.changes));
      queries.setQueryData(settingsQuery.queryKey, (old) => old && { ...old, settings: answer.settings });
      setDrafts({});
      setServerProblems({});
      setSaved(answer);
    } catch (error) {
      // Closed, not kept in the dialog: the problems belong beside their keys.
      setFailure(error);
      setServerProblems(problemsOfError(error));
      setSaved(null);
    }
  };

  const loadError = schema.error ?? current.error;
  return (
    <section className="page settings-page">
      <h1>Settings</h1>
      {current.data && (
        <p className="muted">
          <code>svc.toml</code> as running, from <code>{current.data.file}</code>. A save rewrites that file (its comments are not kept).
        </p>
      )}
      {loadError && <ErrorNote error={loadError} />}
      <div className="toolbar settings-toolbar">
        <button type="button" className="primary" data-testid="settings-save" disabled={changes.length === 0 || invalid > 0} title={invalid > 0 ? 'fix the problems beside the fields first' : undefined} onClick={planSave}>
          {changes.length === 0 ? 'Save' : `Save ${changes.length} change${changes.length === 1 ? '' : 's'}…`}
        </button>
        <button type="button" disabled={Object.keys(drafts).length === 0} onClick={() => (setDrafts({}), setServerProblems({}), setFailure(null))}>
          Discard edits
        </button>
        <ReloadButton disabledWhy={access.why('write')} />
        {invalid > 0 && <span className="field-problem">{invalid} field{invalid === 1 ? '' : 's'} with a problem</span>}
      </div>
      {failure !== null && <ErrorNote error={failure} />}
      {saved && <SavedNote saved={saved} runningSlots={runningSlots} />}
      {schema.isPending || current.isPending ? (
        <p className="muted" aria-busy="true">Loading the settings…</p>
      ) : (
        current.data && (
          <SettingsGroups groups={groups} current={current.data} drafts={drafts} changed={new Set(changes.map((c) => c.key))} serverProblems={serverProblems} readOnlyReason={(key) => readOnlyReason(key, permissions)} onDraft={onDraft} />
        )
      )}
      {planned && (
        <Confirm
          title={`Save ${planned.changes.length} change${planned.changes.length === 1 ? '' : 's'} to svc.toml?`}
          changes={<SavePlan {...planned} runningSlots={runningSlots} />}
          action={planned.plan.manual.length > 0 ? 'Save; I will restart svc' : 'Save'}
          danger={planned.plan.manual.length > 0}
          onConfirm={() => save(planned)}
          onClose={() => setPlanned(null)}
        />
      )}
    </section>
  );
}
