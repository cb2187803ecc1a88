// Every route the gateway registers has a row in the one access table, and docs/api.md
// prints that table exactly: a future route cannot ship without an access class, and the
// documented access cannot drift from what the guard enforces.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load.js';
import { resolvePaths } from '../config/paths.js';
import { PUBLIC_PATHS, ROUTE_ACCESS_TABLE, routeAccess } from '../protocol/access.js';
import { buildApp, registeredRoutes, type RegisteredRoute } from './app.js';
import { ServerContext } from './context.js';

let routes: readonly RegisteredRoute[];

beforeAll(async () => {
  const home = mkdtempSync(join(tmpdir(), 'svc-access-'));
  const paths = resolvePaths({ env: { SVC_HOME: home }, isRoot: false, homeDir: home, exists: () => false });
  const outcome = await loadConfig(paths, {});
  if (!outcome.ok) throw new Error('empty config should load');
  const app = buildApp(new ServerContext(paths, outcome.config, undefined));
  await app.ready();
  routes = registeredRoutes(app);
  await app.close();
});

describe('the route access table', () => {
  it('sees the registered routes', () => {
    expect(routes.length).toBeGreaterThan(40);
  });

  it('has a class for every registered route', () => {
    const unlisted = routes.filter((r) => r.access === 'unlisted').map((r) => `${r.method} ${r.url}`);
    expect(unlisted).toEqual([]);
  });

  it('has no row for a route that does not exist', () => {
    const seen = new Set(routes.map((r) => `${r.method === 'HEAD' ? 'GET' : r.method} ${r.url}`));
    const stale = Object.keys(ROUTE_ACCESS_TABLE).filter((key) => {
      const [method, url] = key.split(' ') as [string, string];
      return method === '*' ? ![...seen].some((s) => s.endsWith(` ${url}`)) : !seen.has(key);
    });
    expect(stale).toEqual([]);
  });

  it('makes a route that is not in the table unlisted', () => {
    expect(routeAccess('GET', '/api/not-a-route')).toBe('unlisted');
    expect(routeAccess('HEAD', '/api/status')).toBe('public');
    expect(routeAccess('PATCH', '/api/auth/login')).toBe('public');
  });

  it('is printed exactly in docs/api.md', () => {
    const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('\n## Access\n'));
    const rows = [...section.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE|any) \| `([^`]+)` \| ([a-z0-9-]+) \|$/gm)];
    const documented = Object.fromEntries(rows.map(([, method, path, access]) => [`${method === 'any' ? '*' : method} ${path}`, access]));
    expect(documented).toEqual(ROUTE_ACCESS_TABLE);
  });
});

describe('the public allowlist', () => {
  it('is exactly the public rows of the table', () => {
    const publicRows = Object.entries(ROUTE_ACCESS_TABLE).filter(([, access]) => access === 'public').map(([key]) => key.split(' ')[1]);
    expect([...new Set(publicRows)].sort()).toEqual([...PUBLIC_PATHS].sort());
  });
});
