// What happened after a save or a reload, said beside the toolbar.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SettingsUpdatePayload } from '../../../../src/protocol/settings-wire.js';
import { ErrorNote } from '../../components/error-note.js';
import { applyWords } from './edits.js';
import { reloadSettings, settingsQuery } from './queries.js';

export function SavedNote({ saved, runningSlots }: { saved: SettingsUpdatePayload; runningSlots: readonly string[] }) {
  if (saved.changed.length === 0) return <p className="muted" role="status">Saved: nothing changed.</p>;
  return (
    <div className="card settings-saved" role="status" data-testid="settings-saved">
      <strong>Saved</strong> {saved.changed.length} key{saved.changed.length === 1 ? '' : 's'}:
      <ul>
        {saved.changed.map((key) => (
          <li key={key}>
            <code>{key}</code> {applyWords(saved.apply.keys[key] ?? 'manual', runningSlots)}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** POST /api/settings/reload: re-read every configuration file, as at start-up. */
export function ReloadButton({ disabledWhy }: { disabledWhy: string | undefined }) {
  const queries = useQueryClient();
  const reload = useMutation({
    mutationFn: reloadSettings,
    onSuccess: () => void queries.invalidateQueries({ queryKey: settingsQuery.queryKey, exact: true }),
  });
  return (
    <>
      <button type="button" data-testid="settings-reload" disabled={disabledWhy !== undefined || reload.isPending} title={disabledWhy ?? 'Re-read svc.toml and every slot file from disk'} onClick={() => reload.mutate()}>
        {reload.isPending ? 'Reloading…' : 'Reload from files'}
      </button>
      {reload.error && <ErrorNote error={reload.error} />}
      {reload.data && (
        <span role="status" data-testid="settings-reloaded">
          Reloaded: {reload.data.slots.length} slot{reload.data.slots.length === 1 ? '' : 's'} ({reload.data.slots.join(', ') || 'none'}),{' '}
          {reload.data.warnings.length} warning{reload.data.warnings.length === 1 ? '' : 's'}
          {reload.data.warnings.length > 0 && `: ${reload.data.warnings.join('; ')}`}.
        </span>
      )}
    </>
  );
}
