// The tool server catalog: a curated list of real servers (their npm names checked with
// `npm view`), plus what a refresh read from the official MCP Registry (GET <registry>/v0/servers,
// cursor-paged), keeping the entries svc can install: an npm package or a remote URL. The
// registry part is cached in <state>/mcp/catalog.json (written atomically).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/atomic.js';
import type { McpCatalogItem } from '../protocol/mcp.js';
import { SvcError } from '../protocol/errors.js';
import { idFrom } from './spec.js';

type Curated = Omit<McpCatalogItem, 'installed' | 'source'>;

export const CURATED_CATALOG: readonly Curated[] = [
  { id: 'everything', name: 'Everything', category: 'reference', spec: 'npm:@modelcontextprotocol/server-everything', homepage: 'https://github.com/modelcontextprotocol/servers/tree/main/src/everything', description: 'The reference test server: echo, add, long-running operations, resources and prompts.' },
  { id: 'filesystem', name: 'Filesystem', category: 'files', spec: 'npm:@modelcontextprotocol/server-filesystem', homepage: 'https://github.com/modelcontextprotocol/servers/tree/main/src/filesystem', description: 'Read, write and search files under the directories given as arguments.' },
  { id: 'memory', name: 'Memory', category: 'knowledge', spec: 'npm:@modelcontextprotocol/server-memory', homepage: 'https://github.com/modelcontextprotocol/servers/tree/main/src/memory', description: 'A knowledge graph of entities and relations kept in a local file.' },
  { id: 'sequential-thinking', name: 'Sequential thinking', category: 'reasoning', spec: 'npm:@modelcontextprotocol/server-sequential-thinking', homepage: 'https://github.com/modelcontextprotocol/servers/tree/main/src/sequentialthinking', description: 'Step-by-step problem solving through a structured thinking tool.' },
  { id: 'fetch', name: 'Fetch', category: 'web', spec: 'npm:mcp-fetch-server', homepage: 'https://github.com/zcaceres/fetch-mcp', description: 'Fetch web pages as HTML, text, Markdown or JSON.' },
  { id: 'playwright', name: 'Playwright', category: 'web', spec: 'npm:@playwright/mcp', homepage: 'https://github.com/microsoft/playwright-mcp', description: 'Drive a browser: navigate, click, fill forms, take snapshots.' },
  { id: 'github', name: 'GitHub', category: 'development', spec: 'npm:@modelcontextprotocol/server-github', homepage: 'https://github.com/modelcontextprotocol/servers-archived/tree/main/src/github', description: 'Repositories, issues and pull requests (needs GITHUB_PERSONAL_ACCESS_TOKEN as a secret).' },
  { id: 'brave-search', name: 'Brave Search', category: 'web', spec: 'npm:@modelcontextprotocol/server-brave-search', homepage: 'https://github.com/modelcontextprotocol/servers-archived/tree/main/src/brave-search', description: 'Web and local search through the Brave Search API (needs BRAVE_API_KEY as a secret).' },
  { id: 'context7', name: 'Context7', category: 'development', spec: 'npm:@upstash/context7-mcp', homepage: 'https://github.com/upstash/context7', description: 'Up-to-date library documentation and code examples.' },
  { id: 'tavily', name: 'Tavily', category: 'web', spec: 'npm:tavily-mcp', homepage: 'https://github.com/tavily-ai/tavily-mcp', description: 'Search and extract the web with Tavily (needs TAVILY_API_KEY as a secret).' },
];

/** The cache file's content. */
export interface RegistryCache {
  refreshed_at: string;
  registry_url: string;
  items: Curated[];
}

interface RegistryServerEntry {
  server?: {
    name?: string;
    title?: string;
    description?: string;
    version?: string;
    websiteUrl?: string;
    repository?: { url?: string };
    packages?: Array<{ registryType?: string; identifier?: string; version?: string; transport?: { type?: string } }>;
    remotes?: Array<{ type?: string; url?: string }>;
  };
}

interface RegistryPage {
  servers?: RegistryServerEntry[];
  metadata?: { nextCursor?: string; next_cursor?: string };
}

const MAX_PAGES = 50;
const PAGE_LIMIT = 100;

export const catalogCachePath = (mcpStateDir: string) => join(mcpStateDir, 'catalog.json');

export async function readRegistryCache(mcpStateDir: string): Promise<RegistryCache | null> {
  try {
    return JSON.parse(await readFile(catalogCachePath(mcpStateDir), 'utf8')) as RegistryCache;
  } catch {
    return null;
  }
}

/** Read every page of the registry and cache the installable entries. */
export async function refreshRegistry(registryUrl: string, mcpStateDir: string, timeoutMs = 15_000): Promise<RegistryCache> {
  const items = new Map<string, Curated>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const url = new URL('/v0/servers', registryUrl);
    url.searchParams.set('limit', String(PAGE_LIMIT));
    if (cursor) url.searchParams.set('cursor', cursor);
    const body = await getJson(url, timeoutMs);
    for (const entry of body.servers ?? []) {
      const item = toItem(entry);
      if (item && !items.has(item.id)) items.set(item.id, item);
    }
    cursor = body.metadata?.nextCursor ?? body.metadata?.next_cursor;
    if (!cursor || (body.servers ?? []).length === 0) break;
  }
  const cache: RegistryCache = { refreshed_at: new Date().toISOString(), registry_url: registryUrl, items: [...items.values()] };
  await writeFileAtomic(catalogCachePath(mcpStateDir), `${JSON.stringify(cache, null, 1)}\n`);
  return cache;
}

async function getJson(url: URL, timeoutMs: number): Promise<RegistryPage> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
  } catch (error) {
    throw new SvcError('mcp.unavailable', `cannot reach the MCP Registry at ${url.origin}: ${(error as Error).message}`, { state: 'error', last_error: (error as Error).message, registry: url.origin });
  }
  if (!res.ok) throw new SvcError('mcp.unavailable', `the MCP Registry at ${url.origin} answered ${res.status}`, { state: 'error', last_error: `HTTP ${res.status}`, registry: url.origin });
  return (await res.json()) as RegistryPage;
}

/** An entry svc can install: its npm package (stdio), else its first streamable-http/sse remote. */
export function toItem(entry: RegistryServerEntry): Curated | null {
  const server = entry.server;
  if (!server?.name) return null;
  const npm = server.packages?.find((p) => p.registryType === 'npm' && p.identifier && (p.transport?.type ?? 'stdio') === 'stdio');
  const remote = server.remotes?.find((r) => (r.type === 'streamable-http' || r.type === 'sse') && r.url?.startsWith('http'));
  const spec = npm ? `npm:${npm.identifier}${npm.version ? `@${npm.version}` : ''}` : remote ? remote.url! : null;
  if (!spec) return null;
  const last = server.name.split('/').pop() ?? server.name;
  return {
    id: idFrom(last),
    name: server.title || server.name,
    description: (server.description ?? '').slice(0, 500),
    category: 'registry',
    spec,
    homepage: server.websiteUrl || server.repository?.url || '',
  };
}
