// The catalog: the curated entries, and a refresh from a registry that speaks the official
// MCP Registry API (GET /v0/servers, cursor paging), served by a small local server here since
// the real registry cannot be reached from tests.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpHarness } from '../../test/helpers/mcp.js';
import { catalogCachePath } from './catalog.js';

const PAGES: Record<string, unknown> = {
  '': {
    servers: [
      { server: { name: 'io.github.acme/weather', title: 'Weather', description: 'Forecasts', version: '1.0.0', packages: [{ registryType: 'npm', identifier: '@acme/weather-mcp', version: '1.0.0', transport: { type: 'stdio' } }], repository: { url: 'https://github.com/acme/weather' } }, _meta: {} },
      { server: { name: 'io.github.acme/pypi-only', description: 'Python only', version: '1.0.0', packages: [{ registryType: 'pypi', identifier: 'acme-tool', version: '1.0.0', transport: { type: 'stdio' } }] }, _meta: {} },
    ],
    metadata: { nextCursor: 'page2', count: 2 },
  },
  page2: {
    servers: [
      { server: { name: 'com.example/remote-search', description: 'Search', version: '2.0.0', remotes: [{ type: 'streamable-http', url: 'https://search.example.com/mcp' }], websiteUrl: 'https://example.com' }, _meta: {} },
      { server: { name: 'io.github.modelcontextprotocol/everything', description: 'dup of a curated one', version: '1', packages: [{ registryType: 'npm', identifier: '@modelcontextprotocol/server-everything', version: '1', transport: { type: 'stdio' } }] }, _meta: {} },
    ],
    metadata: { count: 2 },
  },
};

let registry: Server | undefined;
afterEach(() => registry?.close());

function startRegistry(): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  registry = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url.pathname + url.search);
    const page = url.pathname === '/v0/servers' ? PAGES[url.searchParams.get('cursor') ?? ''] : undefined;
    res.writeHead(page ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(page ?? { error: 'not found' }));
  });
  return new Promise((done) => registry!.listen(0, '127.0.0.1', () => done({ url: `http://127.0.0.1:${(registry!.address() as AddressInfo).port}`, requests })));
}

describe('catalog', () => {
  it('lists the curated servers before any refresh', async () => {
    const h = mcpHarness();
    const catalog = await h.service.catalog();
    expect(catalog.refreshed_at).toBeNull();
    expect(catalog.items.map((i) => i.spec)).toEqual(expect.arrayContaining(['npm:@modelcontextprotocol/server-everything', 'npm:@modelcontextprotocol/server-filesystem', 'npm:@modelcontextprotocol/server-memory', 'npm:@modelcontextprotocol/server-sequential-thinking', 'npm:mcp-fetch-server', 'npm:@playwright/mcp']));
    expect(catalog.items.every((i) => i.source === 'curated' && !i.installed)).toBe(true);
  });

  it('refreshes from the registry API across pages, keeping npm packages and remote URLs, cached on disk', async () => {
    const { url, requests } = await startRegistry();
    const h = mcpHarness({ registry_url: url });
    const catalog = await h.service.refreshCatalog();
    expect(requests).toEqual(['/v0/servers?limit=100', '/v0/servers?limit=100&cursor=page2']);
    const fromRegistry = catalog.items.filter((i) => i.source === 'registry');
    expect(fromRegistry).toEqual([
      expect.objectContaining({ id: 'weather', name: 'Weather', spec: 'npm:@acme/weather-mcp@1.0.0', homepage: 'https://github.com/acme/weather', category: 'registry' }),
      expect.objectContaining({ id: 'remote-search', spec: 'https://search.example.com/mcp', homepage: 'https://example.com' }),
    ]);
    expect(catalog.refreshed_at).not.toBeNull();
    expect(catalog.categories).toContain('registry');
    expect(existsSync(catalogCachePath(h.paths.mcpStateDir))).toBe(true);
    // A fresh service (a restarted gateway) reads the cache.
    const again = mcpHarness({ registry_url: url }, { home: h.home });
    expect((await again.service.catalog()).items.filter((i) => i.source === 'registry').map((i) => i.id)).toEqual(['weather', 'remote-search']);
    expect(h.rows.map((r) => r.action)).toContain('mcp.catalog_refresh');
  });

  it('says mcp.unavailable when the registry does not answer', async () => {
    const h = mcpHarness({ registry_url: 'http://127.0.0.1:9' });
    await expect(h.service.refreshCatalog()).rejects.toMatchObject({ code: 'mcp.unavailable' });
  });
});
