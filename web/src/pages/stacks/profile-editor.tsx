// /stacks/profiles/new and /stacks/profiles/<name>/edit: a profile's fields, checked as the
// user types against the server's schema; the server's own refusals (flags svc owns, a gpu
// profile without a backend, host-only flags) appear beside the field they name.
import { useState } from 'react';
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ProfilePayload } from '../../../../src/protocol/profiles.js';
import { getJson } from '../../api-error.js';
import { ErrorNote } from '../../components/error-note.js';
import { Link, useTitle } from '../../router.js';
import { ProfileFormView } from './profile-form.js';
import { profilePath } from './queries.js';

const profileQuery = (name: string) =>
  queryOptions({ queryKey: ['profiles', 'one', name], queryFn: ({ signal }) => getJson<ProfilePayload>(profilePath(name), signal), refetchOnWindowFocus: false });

function EditExisting({ name }: { name: string }) {
  const profile = useQuery(profileQuery(name));
  const [key] = useState(() => Date.now());
  if (profile.error) return <ErrorNote error={profile.error} />;
  if (!profile.data) return <p className="muted">Loading…</p>;
  if (profile.data.seed) {
    return (
      <p className="warn-note">
        {name} is a seed profile: built in and immutable. <Link to={`/stacks/profiles/${encodeURIComponent(name)}/clone`}>Clone it</Link> to change a copy.
      </p>
    );
  }
  return <ProfileFormView key={key} original={profile.data} />;
}

export function ProfileEditor({ name }: { name: string | null }) {
  useTitle(name ? `Edit profile ${name}` : 'New profile');
  return (
    <section className="page stacks-page">
      <p>
        <Link to="/stacks">← Profiles & stacks</Link>
      </p>
      <h1>{name ? `Edit profile ${name}` : 'New profile'}</h1>
      {name ? <EditExisting name={name} /> : <ProfileFormView original={undefined} />}
    </section>
  );
}
