// The shell: the nav (only pages that exist), the stream's health, and the current page.
// The Overview is in the first chunk; every other page is a lazy chunk (its folder under
// pages/, default export) that loads only when opened.
import { lazy, Suspense } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, routeFor, usePath, useTitle, type Route } from './router.js';
import { Overview } from './pages/overview.js';
import { useStreamStatus } from './live.js';
import { ErrorNote } from './components/error-note.js';
import { useAccess } from './access.js';
import { approvalsQuery } from './approvals.js';

export const ROUTES: Route[] = [
  { path: '/', title: 'Overview', page: Overview },
  { path: '/slots', title: 'Slots', page: lazy(() => import('./pages/slots/index.js')) },
  { path: '/models', title: 'Models', page: lazy(() => import('./pages/models/index.js')) },
  { path: '/stacks', title: 'Profiles & stacks', page: lazy(() => import('./pages/stacks/index.js')) },
  { path: '/settings', title: 'Settings', page: lazy(() => import('./pages/settings/index.js')) },
  { path: '/access', title: 'Access', page: lazy(() => import('./pages/access/index.js')) },
  { path: '/activity', title: 'Activity', page: lazy(() => import('./pages/activity/index.js')) },
  { path: '/playground', title: 'Playground', page: lazy(() => import('./pages/playground/index.js')) },
  { path: '/doctor', title: 'Doctor', page: lazy(() => import('./pages/doctor/index.js')) },
  { path: '/updates', title: 'Updates', page: lazy(() => import('./pages/updates/index.js')) },
  { path: '/tools', title: 'Tool servers', page: lazy(() => import('./pages/tools/index.js')) },
  { path: '/memory', title: 'Memory', page: lazy(() => import('./pages/memory/index.js')) },
  { path: '/agents', title: 'Agents', page: lazy(() => import('./pages/agents/index.js')) },
];

/** The calls waiting for a decision, beside the Tool servers link (nothing when none wait). */
function PendingApprovals() {
  const access = useAccess();
  const { data } = useQuery({ ...approvalsQuery, enabled: access.can('read') });
  const count = data?.approvals.length ?? 0;
  if (count === 0) return null;
  return (
    <>
      <span className="nav-badge" data-testid="approvals-badge" aria-hidden="true">
        {count}
      </span>
      <span className="sr-only">, {count} pending approval{count === 1 ? '' : 's'}</span>
    </>
  );
}

function Loading() {
  return (
    <p className="muted" aria-busy="true">
      Loading…
    </p>
  );
}

function NotFound() {
  useTitle('not found');
  return (
    <section className="page">
      <h1>Not found</h1>
      <p>
        No page at <code>{window.location.pathname}</code>. <Link to="/">Back to the overview</Link>
      </p>
    </section>
  );
}

function StreamBanner() {
  const status = useStreamStatus();
  if (status.state !== 'down') return null;
  return (
    <div className="banner" role="alert" data-testid="stream-down">
      <strong>Live updates are down</strong>, reconnecting (try {status.failures + 1})
      {status.lastEventId !== null && <> from event {status.lastEventId}</>}. What you see may be out of date.
      {status.error && <ErrorNote error={status.error} />}
    </div>
  );
}

export function App() {
  const path = usePath();
  const route = routeFor(ROUTES, path);
  const Page = route?.page ?? NotFound;
  const status = useStreamStatus();
  return (
    <div className="shell">
      <header className="top">
        <span className="brand">svc</span>
        <nav>
          {ROUTES.map((r) => (
            <Link key={r.path} to={r.path} current={r === route}>
              {r.title}
              {r.path === '/tools' && <PendingApprovals />}
            </Link>
          ))}
        </nav>
        <span className={`live live-${status.state}`} data-testid="stream-state" title="the event stream">
          {status.state === 'open' ? 'live' : status.state}
        </span>
      </header>
      <StreamBanner />
      <main>
        <Suspense fallback={<Loading />}>
          <Page />
        </Suspense>
      </main>
    </div>
  );
}
