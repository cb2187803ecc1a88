// Every profile: the twelve seeds (built in, immutable: clone one to change it) and the
// user's from profiles.toml, with the slot types each serves and the slots that use it.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ProfilePayload } from '../../../../src/protocol/profiles.js';
import { sendJson } from '../../api-error.js';
import { useAccess } from '../../access.js';
import { Confirm } from '../../components/confirm.js';
import { ErrorNote } from '../../components/error-note.js';
import { Link, navigate } from '../../router.js';
import { profilePath, profilesQuery } from './queries.js';
import { DataTable } from '../../components/data-table.js';

function DeleteChanges({ profile }: { profile: ProfilePayload }) {
  if (profile.used_by.length === 0) return <p>Removes {profile.name} from profiles.toml. No slot uses it.</p>;
  return (
    <p className="warn-note" data-testid="delete-used-by">
      Slots {profile.used_by.join(', ')} use {profile.name}: they keep running, but fail to start until they name another profile.
    </p>
  );
}

function ProfileRow({ profile, onDelete }: { profile: ProfilePayload; onDelete: (p: ProfilePayload) => void }) {
  const access = useAccess();
  const writable = access.can('write');
  return (
    <tr data-testid={`profile-${profile.name}`}>
      <th scope="row">
        {profile.name}
        {profile.seed ? <span className="badge" title="built in; clone it to change it">seed · immutable</span> : profile.cloned_from && <span className="muted"> from {profile.cloned_from}</span>}
      </th>
      <td>{profile.device_class}{profile.backend && ` · ${profile.backend}`}</td>
      <td>{profile.serves.join(', ') || '—'}</td>
      <td>{profile.intent || '—'}</td>
      <td>{profile.used_by.join(', ') || '—'}</td>
      <td className="row-actions">
        <button type="button" onClick={() => navigate(`/stacks/profiles/${encodeURIComponent(profile.name)}/clone`)} disabled={!writable} title={access.why('write')} aria-label={`Clone profile ${profile.name}`}>
          Clone
        </button>
        {!profile.seed && (
          <>
            <button type="button" onClick={() => navigate(`/stacks/profiles/${encodeURIComponent(profile.name)}/edit`)} disabled={!writable} title={access.why('write')} aria-label={`Edit profile ${profile.name}`}>
              Edit
            </button>
            <button type="button" className="danger" onClick={() => onDelete(profile)} disabled={!writable} title={access.why('write')} aria-label={`Delete profile ${profile.name}`}>
              Delete
            </button>
          </>
        )}
      </td>
    </tr>
  );
}

export function ProfileTable() {
  const profiles = useQuery(profilesQuery);
  const queries = useQueryClient();
  const access = useAccess();
  const [deleting, setDeleting] = useState<ProfilePayload | null>(null);
  if (profiles.error) return <ErrorNote error={profiles.error} />;
  if (!profiles.data) return <p className="muted">Loading…</p>;
  const remove = async (profile: ProfilePayload) => {
    await sendJson('DELETE', `${profilePath(profile.name)}${profile.used_by.length ? '?force=true' : ''}`);
    await queries.invalidateQueries({ queryKey: profilesQuery.queryKey });
  };
  return (
    <>
      <div className="toolbar">
        {access.can('write') ? <Link to="/stacks/profiles/new">New profile…</Link> : <span className="muted">{access.why('write')}</span>}
      </div>
      <DataTable columns={['profile', 'device', 'serves', 'intent', 'used by', 'actions']} testId="profiles">
        {profiles.data.profiles.map((profile) => (
          <ProfileRow key={profile.name} profile={profile} onDelete={setDeleting} />
        ))}
      </DataTable>
      {deleting && (
        <Confirm title={`Delete profile ${deleting.name}?`} changes={<DeleteChanges profile={deleting} />} action="Delete" onConfirm={() => remove(deleting)} onClose={() => setDeleting(null)} />
      )}
    </>
  );
}
