// Remote OpenAI-compatible endpoints: the enabled providers (providers.toml) and the enabled
// remote upstreams (upstreams.toml entries with no `slot`), where each answers and with
// which headers, and the model ids each serves.
//
// Model lists come from the endpoint's static `models` list, or from its `GET <base_url>/models`
// through a cache: an entry fetched less than CATALOG_TTL_MS ago is used as it is; cold
// entries are fetched at most `[dispatcher].prefetch_parallel_cap` at a time, the whole cold
// fetch bounded by `[dispatcher].prefetch_timeout_s`, and concurrent callers share the one
// fetch in flight per endpoint (single-flight). An endpoint that fails or does not answer in
// time lists no models for that call, keeps its error for status, and is asked again on the
// next call. See docs/configuration.md ("providers.toml and upstreams.toml").
import type { ResolvedConfig } from '../config/load.js';
import { DispatchError } from '../protocol/errors.js';
import type { UpstreamCatalog } from './types.js';

/** How long a fetched model list is used before it is fetched again. */
export const CATALOG_TTL_MS = 5 * 60_000;

/** A remote endpoint as configured: a provider or a remote (slot-less) upstream. */
export interface RemoteEndpoint {
  name: string;
  source: 'provider' | 'upstream';
  /** base_url without a trailing slash, e.g. https://api.example.com/v1 */
  baseUrl: string;
  /** Its origin and path, parsed once per config: https://api.example.com and /v1 */
  origin: string;
  basePath: string;
  /** Providers only: ids are exposed as `<prefix>/<id>`. */
  modelPrefix: string | null;
  /** The configured `models` list (upstream ids, before any prefix), or null = fetch GET /models. */
  staticModels: readonly string[] | null;
  timeoutMs: number;
  /** It has the Responses API itself: /v1/responses passes through instead of being translated. */
  responses: boolean;
}

/** Where to send a request for an endpoint. The headers carry the API key: never log them. */
export interface EndpointTarget {
  name: string;
  baseUrl: string;
  origin: string;
  basePath: string;
  /** Lower-case names: the configured headers, then `authorization: Bearer …` from api_key_env. */
  headers: Record<string, string>;
  /** The endpoint's timeout_s, in milliseconds. */
  timeoutMs: number;
  modelPrefix: string | null;
  responses: boolean;
}

/** What /api/status (and tests) can show about one endpoint's model list. */
export interface UpstreamStatus {
  name: string;
  source: 'provider' | 'upstream';
  baseUrl: string;
  /** 'static' = the configured models list; 'fetched' = GET /models through the cache. */
  models: 'static' | 'fetched';
  /** Model ids known now (exposed ids, prefix included); null = never fetched successfully. */
  modelIds: readonly string[] | null;
  /** When the list was last fetched (ms since the epoch), or null. */
  fetchedAt: number | null;
  /** Whether the fetched list is younger than CATALOG_TTL_MS. */
  warm: boolean;
  /** The last fetch failure, cleared by the next success. */
  lastError: { message: string; at: number } | null;
}

export interface UpstreamDirectoryOptions {
  /** Injected for tests; the global (undici) fetch by default. */
  fetch?: typeof fetch;
  /** Clock for the cache, ms since the epoch. */
  now?: () => number;
}

interface CacheEntry {
  /** base_url + headers this entry was fetched with: a config change starts a new entry. */
  fingerprint: string;
  ids: readonly string[] | null;
  fetchedAt: number | null;
  lastError: { message: string; at: number } | null;
  inFlight: Promise<void> | null;
}

/** The id clients see for an upstream's model id. */
export function exposeModelId(prefix: string | null, upstreamId: string): string {
  return prefix ? `${prefix}/${upstreamId}` : upstreamId;
}

/** The id to send upstream for an exposed id: `<prefix>/` removed when present. */
export function stripModelPrefix(prefix: string | null, exposedId: string): string {
  return prefix && exposedId.startsWith(`${prefix}/`) ? exposedId.slice(prefix.length + 1) : exposedId;
}

/** Ids from an OpenAI-shaped `GET /models` body, `{data:[{id}]}`, deduplicated in order. */
export function parseModelList(body: unknown): string[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new Error('the answer has no "data" list (expected the OpenAI shape {data:[{id}]})');
  const ids: string[] = [];
  for (const item of data) {
    const id = (item as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && id !== '' && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** base_url without its trailing slash, with its origin and path apart. */
function urlParts(baseUrl: string): Pick<RemoteEndpoint, 'baseUrl' | 'origin' | 'basePath'> {
  const trimmed = trimSlash(baseUrl);
  const url = new URL(trimmed);
  return { baseUrl: trimmed, origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') };
}

const keyOf = (e: Pick<RemoteEndpoint, 'source' | 'name'>) => `${e.source}:${e.name}`;

export class UpstreamDirectory {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly fetchImpl: typeof fetch;
  private readonly now: () => number;
  /** Fetches running now, across all callers, and the callers waiting for a turn. */
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly config: () => ResolvedConfig,
    private readonly env: NodeJS.ProcessEnv = process.env,
    options: UpstreamDirectoryOptions = {},
  ) {
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.now = options.now ?? Date.now;
  }

  /**
   * The remote endpoints, in order: enabled providers, then enabled upstreams whose `slot`
   * is null (an upstream with a slot fronts a local slot, which the supervisor serves). A
   * provider and an upstream may share a name: both are kept, each with its own cache
   * entry; lookups by name alone (`endpoint`, `upstreamModel`) prefer the one whose model
   * list holds the model asked about, else the provider.
   */
  endpoints(): RemoteEndpoint[] {
    // The config is replaced whole on a change, never mutated: the list is made once per config.
    const config = this.config();
    if (this.endpointsOf?.config !== config) this.endpointsOf = { config, list: this.listEndpoints(config) };
    return this.endpointsOf.list;
  }

  private endpointsOf: { config: ResolvedConfig; list: RemoteEndpoint[] } | undefined;

  private listEndpoints({ providers, upstreams }: ResolvedConfig): RemoteEndpoint[] {
    const out: RemoteEndpoint[] = [];
    for (const [name, p] of Object.entries(providers.providers)) {
      if (!p.enabled) continue;
      out.push({ name, source: 'provider', ...urlParts(p.base_url), modelPrefix: p.model_prefix || null, staticModels: p.models, timeoutMs: p.timeout_s * 1000, responses: p.responses });
    }
    for (const [name, u] of Object.entries(upstreams.upstreams)) {
      if (!u.enabled || u.slot !== null) continue;
      out.push({ name, source: 'upstream', ...urlParts(u.base_url), modelPrefix: null, staticModels: u.models, timeoutMs: u.timeout_s * 1000, responses: u.responses });
    }
    return out;
  }

  /**
   * Where to send a request for endpoint `name` (a catalog name from `catalogs()`). `model`,
   * the exposed id, picks between a provider and an upstream of the same name. Throws 404
   * dispatch.no_route when no enabled remote endpoint has the name (e.g. after a reload).
   */
  endpoint(name: string, model?: string): EndpointTarget {
    const ep = this.pick(name, model);
    return { name: ep.name, baseUrl: ep.baseUrl, origin: ep.origin, basePath: ep.basePath, headers: this.headersFor(ep), timeoutMs: ep.timeoutMs, modelPrefix: ep.modelPrefix, responses: ep.responses };
  }

  /** The model id to send to endpoint `name` for the exposed id (a provider's model_prefix removed). */
  upstreamModel(name: string, exposedId: string): string {
    return stripModelPrefix(this.pick(name, exposedId).modelPrefix, exposedId);
  }

  /**
   * Every endpoint's model ids (exposed ids), in endpoint order, fetching cold lists (see
   * the file comment). Never rejects because an endpoint failed; rejects with the signal's
   * reason when `signal` aborts (the shared fetches go on for the other callers).
   */
  async catalogs(signal?: AbortSignal): Promise<UpstreamCatalog[]> {
    signal?.throwIfAborted();
    const endpoints = this.endpoints();
    const cold: Promise<void>[] = [];
    const timeoutS = this.config().svc.dispatcher.prefetch_timeout_s;
    let deadline: AbortSignal | undefined;
    for (const ep of endpoints) {
      if (ep.staticModels !== null) continue;
      const entry = this.entryFor(ep);
      if (this.isWarm(entry)) continue;
      deadline ??= AbortSignal.timeout(timeoutS * 1000);
      // Single-flight: a fetch already under way (started by another caller) is joined.
      cold.push(entry.inFlight ?? this.fetchInto(ep, entry, deadline, timeoutS));
    }
    // A joined fetch keeps its own (earlier) deadline; this call waits no longer than its own.
    if (deadline) await waitAll(cold, deadline, signal);
    return endpoints.map((ep) => ({ name: ep.name, modelIds: this.knownIds(ep) ?? [] }));
  }

  /** The lists known without fetching: static lists and fetched ones still warm. */
  cachedCatalogs(): UpstreamCatalog[] {
    return this.endpoints().map((ep) => ({ name: ep.name, modelIds: this.knownIds(ep) ?? [] }));
  }

  /** Every endpoint's list state and last error, without fetching. */
  status(): UpstreamStatus[] {
    return this.endpoints().map((ep) => {
      const current = ep.staticModels === null ? this.current(ep) : undefined;
      return {
        name: ep.name,
        source: ep.source,
        baseUrl: ep.baseUrl,
        models: ep.staticModels !== null ? 'static' : 'fetched',
        modelIds: ep.staticModels !== null ? this.knownIds(ep) : current?.ids ? current.ids.map((id) => exposeModelId(ep.modelPrefix, id)) : null,
        fetchedAt: current?.fetchedAt ?? null,
        warm: ep.staticModels !== null || (current !== undefined && this.isWarm(current)),
        lastError: current?.lastError ?? null,
      };
    });
  }

  /** Forget fetched lists (all, or one endpoint's), so the next catalogs() fetches again. */
  invalidate(name?: string): void {
    for (const [key, entry] of this.cache) {
      if (name === undefined || key.endsWith(`:${name}`)) entry.fetchedAt = null;
    }
  }

  private pick(name: string, model?: string): RemoteEndpoint {
    const matches = this.endpoints().filter((e) => e.name === name);
    const first = matches[0];
    if (first === undefined) throw new DispatchError('dispatch.no_route', `no enabled provider or remote upstream is named "${name}"`, { upstream: name });
    if (matches.length === 1 || model === undefined) return first;
    return matches.find((e) => this.knownIds(e)?.includes(model)) ?? first;
  }

  private headersFor(ep: RemoteEndpoint): Record<string, string> {
    const cfg = ep.source === 'provider' ? this.config().providers.providers[ep.name] : this.config().upstreams.upstreams[ep.name];
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(cfg?.headers ?? {})) headers[k.toLowerCase()] = v;
    const keyVar = cfg?.api_key_env;
    const key = keyVar ? this.env[keyVar] : undefined;
    if (key) headers.authorization = `Bearer ${key}`;
    return headers;
  }

  private fingerprint(ep: RemoteEndpoint): string {
    return JSON.stringify([ep.baseUrl, this.headersFor(ep)]);
  }

  private entryFor(ep: RemoteEndpoint): CacheEntry {
    const key = keyOf(ep);
    const fingerprint = this.fingerprint(ep);
    let entry = this.cache.get(key);
    if (!entry || entry.fingerprint !== fingerprint) {
      entry = { fingerprint, ids: null, fetchedAt: null, lastError: null, inFlight: null };
      this.cache.set(key, entry);
    }
    return entry;
  }

  private isWarm(entry: CacheEntry): boolean {
    return entry.fetchedAt !== null && this.now() - entry.fetchedAt < CATALOG_TTL_MS;
  }

  /** Exposed ids known for an endpoint now: its static list, or its warm fetched list. */
  private knownIds(ep: RemoteEndpoint): string[] | null {
    if (ep.staticModels !== null) return ep.staticModels.map((id) => exposeModelId(ep.modelPrefix, id));
    const entry = this.current(ep);
    if (!entry?.ids || !this.isWarm(entry)) return null;
    return entry.ids.map((id) => exposeModelId(ep.modelPrefix, id));
  }

  /** The cache entry for an endpoint as configured now (none when its base_url or headers changed). */
  private current(ep: RemoteEndpoint): CacheEntry | undefined {
    const entry = this.cache.get(keyOf(ep));
    return entry && entry.fingerprint === this.fingerprint(ep) ? entry : undefined;
  }

  /** One fetch of GET <base_url>/models into the entry; shared by every caller until it settles. Never rejects. */
  private fetchInto(ep: RemoteEndpoint, entry: CacheEntry, deadline: AbortSignal, timeoutS: number): Promise<void> {
    const url = `${ep.baseUrl}/models`;
    const run = async () => {
      try {
        await this.turn(deadline);
        try {
          const response = await this.fetchImpl(url, { headers: { accept: 'application/json', ...this.headersFor(ep) }, signal: deadline });
          if (!response.ok) {
            await response.body?.cancel().catch(() => undefined);
            throw new Error(`GET ${url} answered HTTP ${response.status}`);
          }
          entry.ids = parseModelList(await response.json());
          entry.fetchedAt = this.now();
          entry.lastError = null;
        } finally {
          this.release();
        }
      } catch (error) {
        entry.lastError = { message: describeFailure(error, url, deadline, timeoutS), at: this.now() };
      } finally {
        entry.inFlight = null;
      }
    };
    entry.inFlight = run();
    return entry.inFlight;
  }

  /** Wait for one of the prefetch_parallel_cap fetch turns (read live from the config). */
  private turn(signal: AbortSignal): Promise<void> {
    const cap = this.config().svc.dispatcher.prefetch_parallel_cap;
    if (this.running < cap) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        signal.removeEventListener('abort', giveUp);
        this.running++;
        resolve();
      };
      const giveUp = () => {
        const i = this.waiting.indexOf(go);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', giveUp, { once: true });
      this.waiting.push(go);
    });
  }

  private release(): void {
    this.running--;
    const cap = this.config().svc.dispatcher.prefetch_parallel_cap;
    while (this.running < cap && this.waiting.length > 0) this.waiting.shift()!();
  }
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** A failure as one line for status; never includes headers (the API key). */
function describeFailure(error: unknown, url: string, deadline: AbortSignal, timeoutS: number): string {
  if (deadline.aborted) return `GET ${url} did not answer within ${timeoutS} s ([dispatcher].prefetch_timeout_s)`;
  const e = error as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  const message = e.message ?? String(error);
  return message.startsWith('GET ') ? message : `GET ${url} failed: ${message}${cause ? ` (${cause})` : ''}`;
}

/** Wait for every promise (none rejects) or the deadline; reject when the caller's signal aborts first. */
function waitAll(promises: Promise<void>[], deadline: AbortSignal, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      deadline.removeEventListener('abort', done);
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = () => {
      deadline.removeEventListener('abort', done);
      reject(signal?.reason);
    };
    deadline.addEventListener('abort', done, { once: true });
    signal?.addEventListener('abort', onAbort, { once: true });
    void Promise.all(promises).then(done);
  });
}
