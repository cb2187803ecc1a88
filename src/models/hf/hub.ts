// The Hugging Face endpoint as a pull sees it: refs, the file tree, search and file bytes.
// The endpoint is SVC_HF_ENDPOINT, else HF_ENDPOINT, else https://huggingface.co. Only the
// endpoint, the hosts it redirects to and [models].pull_allowed_hosts are fetched from, and
// the token goes to the endpoint's host alone: a redirect to a CDN drops it.
import { request, type Dispatcher } from 'undici';
import { ModelError } from '../../protocol/errors.js';
import { VERSION } from '../../lib/version.js';
import type { RepoFile } from './pick.js';
import { safeRepoPath } from '../../protocol/pull-ref.js';

export interface HubSettings {
  readonly endpoint: string;
  readonly token: string | null;
  /** Hosts (host or host:port) a direct URL may name besides the endpoint's. */
  readonly allowedHosts: readonly string[];
}

export function hubSettings(env: NodeJS.ProcessEnv, allowedHosts: readonly string[]): HubSettings {
  const endpoint = (env.SVC_HF_ENDPOINT || env.HF_ENDPOINT || 'https://huggingface.co').replace(/\/+$/, '');
  return { endpoint, token: env.HF_TOKEN || env.HUGGING_FACE_HUB_TOKEN || null, allowedHosts };
}

export interface OpenedBody {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Dispatcher.ResponseData['body'];
  /** The URL that answered, after redirects. */
  readonly url: string;
}

const MAX_REDIRECTS = 5;
const MAX_TREE_PAGES = 100;
const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

export class Hub {
  private readonly endpointHost: string;

  constructor(readonly settings: HubSettings) {
    this.endpointHost = new URL(settings.endpoint).host;
  }

  /** May a pull fetch `url` directly (not by a redirect from the endpoint)? */
  allows(url: string): boolean {
    const host = new URL(url).host;
    return host === this.endpointHost || this.settings.allowedHosts.some((allowed) => allowed.toLowerCase() === host.toLowerCase() || allowed.toLowerCase() === new URL(url).hostname.toLowerCase());
  }

  /** Throw model.pull_host_not_allowed unless a pull may fetch `url` directly. */
  checkDirect(url: string): void {
    if (!this.allows(url)) throw hostNotAllowed(url);
  }

  resolveUrl(repo: string, revision: string, path: string): string {
    return `${this.settings.endpoint}/${repo}/resolve/${encodeURIComponent(revision)}/${encodePath(path)}`;
  }

  /** The commit a revision (default main) of a repo points at. */
  async commit(repo: string, revision = 'main'): Promise<string> {
    if (/^[0-9a-f]{40}$/.test(revision)) return revision;
    const refs = await this.json<{ branches?: Array<{ name: string; targetCommit: string }>; tags?: Array<{ name: string; targetCommit: string }> }>(`/api/models/${repo}/refs`, repo);
    const found = [...(refs.branches ?? []), ...(refs.tags ?? [])].find((r) => r.name === revision);
    if (!found || !/^[0-9a-f]{40}$/.test(found.targetCommit)) throw new ModelError('model.pull_not_found', `${repo} has no revision ${JSON.stringify(revision)}`, { repo, revision });
    return found.targetCommit;
  }

  /** Every file of the repo at a commit; a path that could leave the repo folder refuses the whole listing. */
  async tree(repo: string, commit: string): Promise<RepoFile[]> {
    type Entry = { type: string; path: string; size: number; oid: string; lfs?: { oid: string; size: number } };
    // Large repos list in pages (1,000 entries each on huggingface.co), chained by Link: rel="next".
    const entries: Entry[] = [];
    let next: string | null = `${this.settings.endpoint}/api/models/${repo}/tree/${commit}?recursive=true`;
    for (let page = 0; next !== null; page++) {
      if (page >= MAX_TREE_PAGES) throw new ModelError('model.pull_failed', `${repo}: the file list runs past ${MAX_TREE_PAGES} pages`, { repo });
      const answer: { body: Entry[]; next: string | null } = await this.jsonAt<Entry[]>(next, repo);
      if (!Array.isArray(answer.body)) throw new ModelError('model.pull_failed', `${repo}: the endpoint's file list is not a list`, { repo });
      entries.push(...answer.body);
      next = answer.next;
    }
    const files: RepoFile[] = [];
    for (const entry of entries) {
      if (entry.type !== 'file') continue;
      if (typeof entry.path !== 'string' || !safeRepoPath(entry.path)) {
        throw new ModelError('model.pull_unsafe_path', `${repo}: the endpoint listed a file path that leaves the repo (${JSON.stringify(entry.path)}); nothing was fetched`, { repo, path: String(entry.path) });
      }
      const sha256 = entry.lfs && /^[0-9a-f]{64}$/.test(entry.lfs.oid) ? entry.lfs.oid : null;
      files.push({ path: entry.path, size: entry.lfs?.size ?? entry.size, sha256, gitOid: entry.oid });
    }
    return files;
  }

  /** GGUF repos matching a text, most downloaded first. */
  async search(text: string, limit: number): Promise<Array<{ id: string; downloads: number; likes: number }>> {
    const query = new URLSearchParams({ search: text, filter: 'gguf', sort: 'downloads', direction: '-1', limit: String(limit) });
    const found = await this.json<Array<{ id: string; downloads?: number; likes?: number }>>(`/api/models?${query}`, text);
    return (Array.isArray(found) ? found : []).filter((m) => typeof m.id === 'string').map((m) => ({ id: m.id, downloads: m.downloads ?? 0, likes: m.likes ?? 0 }));
  }

  async json<T>(path: string, subject: string): Promise<T> {
    return (await this.jsonAt<T>(`${this.settings.endpoint}${path}`, subject)).body;
  }

  /** A JSON answer and the next page's URL (an endpoint URL only), if its Link header names one. */
  private async jsonAt<T>(url: string, subject: string): Promise<{ body: T; next: string | null }> {
    const answer = await this.open(url, { accept: 'application/json' });
    const text = await answer.body.text();
    if (answer.status !== 200) throw statusError(answer.status, subject, text);
    let body: T;
    try {
      body = JSON.parse(text) as T;
    } catch {
      throw new ModelError('model.pull_failed', `${subject}: the endpoint answered ${new URL(url).pathname} with something that is not JSON`, { url });
    }
    const link = /<([^>]+)>\s*;\s*rel="?next"?/.exec(String(answer.headers.link ?? ''))?.[1];
    const next = link ? new URL(link, url).toString() : null;
    return { body, next: next && new URL(next).host === this.endpointHost ? next : null };
  }

  /**
   * GET (or HEAD) a URL, following redirects by hand: each hop must come from the endpoint
   * or go to an allowed host, and the token is sent only to the endpoint's host.
   */
  async open(url: string, headers: Record<string, string> = {}, options: { method?: 'GET' | 'HEAD'; signal?: AbortSignal } = {}): Promise<OpenedBody> {
    let current = url;
    if (!this.allows(current)) throw hostNotAllowed(current);
    for (let hop = 0; ; hop++) {
      const host = new URL(current).host;
      const sent: Record<string, string> = { 'user-agent': `svc/${VERSION}`, 'accept-encoding': 'identity', ...headers };
      if (this.settings.token && host === this.endpointHost) sent.authorization = `Bearer ${this.settings.token}`;
      const answer = await request(current, { method: options.method ?? 'GET', headers: sent, signal: options.signal }).catch((error: Error) => {
        if (error.name === 'AbortError') throw error;
        throw unreachable(host, this.settings.endpoint, host === this.endpointHost, error);
      });
      const location = answer.headers.location;
      if (answer.statusCode >= 300 && answer.statusCode < 400 && typeof location === 'string' && options.method !== 'HEAD') {
        await answer.body.dump();
        const next = new URL(location, current).toString();
        if (hop >= MAX_REDIRECTS) throw new ModelError('model.pull_failed', `too many redirects from ${url}`, { url });
        if (host !== this.endpointHost && !this.allows(next)) throw hostNotAllowed(next);
        current = next;
        continue;
      }
      return { status: answer.statusCode, headers: answer.headers, body: answer.body, url: current };
    }
  }
}

/**
 * A host that does not answer, with the ways round it: the gateway pulls (not the CLI, not
 * the browser), so the endpoint to change is the gateway's; or the file comes another way.
 */
function unreachable(host: string, endpoint: string, isEndpoint: boolean, error: Error): ModelError {
  const what = isEndpoint ? `the Hugging Face endpoint ${endpoint}` : `${host}, where the Hugging Face endpoint ${endpoint} sent the download`;
  return new ModelError('model.pull_failed', `cannot reach ${what} (${error.message}). The gateway does the pulls: give it an endpoint it can reach by setting SVC_HF_ENDPOINT (or HF_ENDPOINT) to a mirror in the gateway's environment, then restart it; or download the .gguf another way and register the file: svc model register <id> --path /path/to/model.gguf`, {
    host, endpoint, cause: error.message,
  });
}

function hostNotAllowed(url: string): ModelError {
  const host = new URL(url).host;
  return new ModelError('model.pull_host_not_allowed', `${host} is not an allowed pull host: svc fetches only from the Hugging Face endpoint, the hosts it redirects to and [models].pull_allowed_hosts`, { host });
}

/** The error for a non-2xx answer from the endpoint. */
export function statusError(status: number, subject: string, body = ''): ModelError {
  if (status === 401 || status === 403) {
    return new ModelError('model.pull_gated', `${subject} is gated or private (the endpoint answered ${status}): accept its terms on the website and set HF_TOKEN to a token that may read it`, { status });
  }
  if (status === 404) return new ModelError('model.pull_not_found', `${subject} was not found on the endpoint (404)`, { status });
  return new ModelError('model.pull_failed', `${subject}: the endpoint answered ${status}${body ? `: ${body.slice(0, 200)}` : ''}`, { status });
}
