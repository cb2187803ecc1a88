// The catalog as McpService serves it: the curated entries, then the registry's (from the
// cache a refresh wrote), each marked installed when a server was installed from its spec.
import type { McpCatalogItem, McpCatalogPayload } from '../protocol/mcp.js';
import { CURATED_CATALOG, readRegistryCache, refreshRegistry, type RegistryCache } from './catalog.js';
import type { McpInternals } from './service-types.js';

export class McpCatalog {
  constructor(private readonly x: McpInternals) {}

  async catalog(): Promise<McpCatalogPayload> {
    await this.x.loaded();
    return this.payload(await readRegistryCache(this.x.deps.paths.mcpStateDir));
  }

  async refresh(): Promise<McpCatalogPayload> {
    await this.x.loaded();
    const url = this.x.deps.settings().registry_url;
    const cache = await refreshRegistry(url, this.x.deps.paths.mcpStateDir);
    this.x.deps.record({ action: 'mcp.catalog_refresh', target: 'catalog', details: { registry_url: url, items: cache.items.length } });
    return this.payload(cache);
  }

  private payload(cache: RegistryCache | null): McpCatalogPayload {
    const installedSpecs = new Set([...this.x.servers.values()].map((s) => baseSpec(s.record.spec)));
    const items: McpCatalogItem[] = CURATED_CATALOG.map((c) => ({ ...c, source: 'curated' as const, installed: installedSpecs.has(baseSpec(c.spec)) }));
    const curatedSpecs = new Set(CURATED_CATALOG.map((c) => baseSpec(c.spec)));
    const ids = new Set(items.map((i) => i.id));
    for (const entry of cache?.items ?? []) {
      if (curatedSpecs.has(baseSpec(entry.spec))) continue;
      // Two registry servers may end in the same name: the later gets a numbered id.
      let id = entry.id;
      for (let n = 2; ids.has(id); n++) id = `${entry.id}-${n}`;
      ids.add(id);
      items.push({ ...entry, id, source: 'registry', installed: installedSpecs.has(baseSpec(entry.spec)) });
    }
    const categories = [...new Set(items.map((i) => i.category))].sort();
    return { items, categories, refreshed_at: cache?.refreshed_at ?? null };
  }
}

/** npm:<pkg>@<v> and npm:<pkg> are the same server for "installed". */
function baseSpec(spec: string): string {
  if (!spec.startsWith('npm:')) return spec;
  const body = spec.slice(4);
  const at = body.lastIndexOf('@');
  return `npm:${at > 0 ? body.slice(0, at) : body}`;
}
