// `svc doctor toolbox-pull`: for each image manifest.json pins, ask its registry (the OCI
// distribution API) for the digest its tag points at now. A registry that wants a token
// says so with `401 WWW-Authenticate: Bearer realm=…,service=…,scope=…`; an anonymous pull
// token is fetched from that realm and the request repeated (ghcr.io, docker.io, quay.io
// all work this way; a local registry answers at once). Only the manifest's registries and
// the token realms they name are contacted.
import { readFile } from 'node:fs/promises';

export interface ToolboxImage {
  name: string;
  /** registry/repository, e.g. ghcr.io/svc-ai/svc-toolbox-flm. */
  image: string;
  tag: string;
  /** The digest the tag had when svc was released; null when not pinned. */
  digest: string | null;
}

export interface ToolboxRow {
  name: string;
  image: string;
  tag: string;
  ok: boolean;
  digest: string | null;
  pinned_digest: string | null;
  /** null when there is no pin to compare with (or the registry was not reached). */
  matches_pin: boolean | null;
  error: string | null;
}

const ACCEPT = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

/** manifest.json's `toolbox_images`: `{<name>: {image, tag, digest}}` (or a list of such with `name`). */
export async function readManifest(path: string): Promise<ToolboxImage[]> {
  const doc = JSON.parse(await readFile(path, 'utf8')) as { toolbox_images?: unknown };
  const raw = doc.toolbox_images;
  const entries: Array<[string | undefined, unknown]> = Array.isArray(raw) ? raw.map((e) => [undefined, e]) : raw && typeof raw === 'object' ? Object.entries(raw) : [];
  return entries.map(([key, entry]) => {
    const e = (entry ?? {}) as Partial<ToolboxImage>;
    const name = key ?? e.name;
    if (typeof e.image !== 'string' || typeof e.tag !== 'string') throw new Error(`${path}: toolbox_images ${name ?? '?'} needs image and tag`);
    return { name: name ?? e.image, image: e.image, tag: e.tag, digest: typeof e.digest === 'string' ? e.digest : null };
  });
}

/** Where an image's registry answers: docker.io's is registry-1.docker.io; a loopback registry speaks plain HTTP. */
export function registryOf(image: string): { base: string; repository: string } {
  const slash = image.indexOf('/');
  const first = slash === -1 ? '' : image.slice(0, slash);
  const isHost = first.includes('.') || first.includes(':') || first === 'localhost';
  let host = isHost ? first : 'docker.io';
  let repository = isHost ? image.slice(slash + 1) : image;
  if (host === 'docker.io') {
    host = 'registry-1.docker.io';
    if (!repository.includes('/')) repository = `library/${repository}`;
  }
  const loopback = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/.test(host);
  return { base: `${loopback ? 'http' : 'https'}://${host}`, repository };
}

/** The parameters of a `Bearer realm="…",service="…"` challenge. */
export function parseChallenge(header: string | null): Record<string, string> | null {
  if (!header || !/^bearer\s/i.test(header)) return null;
  const params: Record<string, string> = {};
  for (const match of header.slice(7).matchAll(/(\w+)="([^"]*)"/g)) params[match[1]!.toLowerCase()] = match[2]!;
  return params.realm ? params : null;
}

export async function checkImage(image: ToolboxImage, timeoutMs = 10_000): Promise<ToolboxRow> {
  const row = { name: image.name, image: image.image, tag: image.tag, pinned_digest: image.digest };
  try {
    const { base, repository } = registryOf(image.image);
    const url = `${base}/v2/${repository}/manifests/${encodeURIComponent(image.tag)}`;
    const ask = (auth?: string) => fetch(url, { method: 'HEAD', headers: { accept: ACCEPT, ...(auth && { authorization: auth }) }, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    let res = await ask();
    if (res.status === 401) {
      const challenge = parseChallenge(res.headers.get('www-authenticate'));
      if (!challenge) throw new Error('401 without a bearer challenge');
      const realm = new URL(challenge.realm!);
      if (realm.protocol !== 'https:' && realm.origin !== new URL(base).origin) throw new Error(`the token realm ${realm.origin} is neither https nor the registry`);
      realm.searchParams.set('service', challenge.service ?? '');
      realm.searchParams.set('scope', challenge.scope ?? `repository:${repository}:pull`);
      const tokenRes = await fetch(realm, { signal: AbortSignal.timeout(timeoutMs) });
      if (!tokenRes.ok) throw new Error(`the token endpoint answered ${tokenRes.status}`);
      const body = (await tokenRes.json()) as { token?: string; access_token?: string };
      res = await ask(`Bearer ${body.token ?? body.access_token ?? ''}`);
    }
    if (!res.ok) throw new Error(`${res.status} ${res.statusText || ''}`.trim() + (res.status === 404 ? ': no such image or tag' : ''));
    const digest = res.headers.get('docker-content-digest');
    if (!digest) throw new Error('the registry sent no Docker-Content-Digest');
    return { ...row, ok: true, digest, matches_pin: image.digest === null ? null : image.digest === digest, error: null };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { ...row, ok: false, digest: null, matches_pin: null, error: `${(error as Error).message}${cause ? ` (${cause})` : ''}` };
  }
}
