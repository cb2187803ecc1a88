// The shell: the nav (only pages that exist), the stream's health, and the current page.
// The Overview is in the first chunk; each later page goes in ROUTES as
// `lazy(() => import('./pages/x.js'))` so that it loads only when opened.
import { Link, usePath, useTitle, type Route } from './router.js';
import { Overview } from './pages/overview.js';
import { useStreamStatus } from './live.js';
import { ErrorNote } from './components/error-note.js';

export const ROUTES: Route[] = [{ path: '/', title: 'Overview', page: Overview }];

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
  const route = ROUTES.find((r) => r.path === path);
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
            </Link>
          ))}
        </nav>
        <span className={`live live-${status.state}`} data-testid="stream-state" title="the event stream">
          {status.state === 'open' ? 'live' : status.state}
        </span>
      </header>
      <StreamBanner />
      <main>
        <Page />
      </main>
    </div>
  );
}
