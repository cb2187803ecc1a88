// Profiles & stacks (issue 25, section 2 item 4): the dashboard is the only UI for both.
// /stacks lists them; /stacks/apply/<slug> plans and applies a stack; /stacks/profiles/new,
// /stacks/profiles/<name>/edit and /stacks/profiles/<name>/clone write profiles.
import { Link, useSubPath, useTitle } from '../../router.js';
import { useStackPageEvents } from './queries.js';
import { ActiveStack } from './active-stack.js';
import { StackList } from './stack-list.js';
import { SnapshotForm } from './snapshot-form.js';
import { ImportForm } from './import-form.js';
import { ProfileTable } from './profile-table.js';
import { ApplyView } from './apply-view.js';
import { ProfileEditor } from './profile-editor.js';
import { CloneForm } from './clone-form.js';
import './stacks.css';

function Main() {
  useTitle('Profiles & stacks');
  return (
    <section className="page stacks-page">
      <h1>Profiles & stacks</h1>
      <h2>Active stack</h2>
      <ActiveStack />
      <h2>Stacks</h2>
      <StackList />
      <div className="columns">
        <SnapshotForm />
        <ImportForm />
      </div>
      <h2 id="profiles">Profiles</h2>
      <ProfileTable />
    </section>
  );
}

function Missing({ path }: { path: string }) {
  useTitle('Profiles & stacks · not found');
  return (
    <section className="page">
      <h1>Not found</h1>
      <p>
        Nothing at <code>{path}</code>. <Link to="/stacks">Back to profiles & stacks</Link>
      </p>
    </section>
  );
}

export default function Page() {
  useStackPageEvents();
  const sub = useSubPath('/stacks');
  const [first, second, third] = sub;
  if (sub.length === 0) return <Main />;
  if (first === 'apply' && second && sub.length === 2) return <ApplyView slug={second} />;
  if (first === 'profiles' && second === 'new' && sub.length === 2) return <ProfileEditor name={null} />;
  if (first === 'profiles' && second && third === 'edit' && sub.length === 3) return <ProfileEditor name={second} />;
  if (first === 'profiles' && second && third === 'clone' && sub.length === 3) return <CloneForm from={second} />;
  return <Missing path={`/stacks/${sub.join('/')}`} />;
}
