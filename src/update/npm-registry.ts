// What the npm registry says about svc's package: its dist-tags and versions (the
// abbreviated metadata npm itself reads). Only the configured registry is contacted.
import { SvcError } from '../protocol/errors.js';
import { rcompare, valid } from 'semver';

export interface PackageInfo {
  /** false: the registry answered 404 for the package (a mirror or a test registry without svc). */
  published: boolean;
  distTags: Record<string, string>;
  /** Newest first. */
  versions: string[];
}

export async function packageInfo(registry: string, name: string, timeoutMs = 15_000): Promise<PackageInfo> {
  const url = new URL(name.replace('/', '%2f'), registry);
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8' }, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new SvcError('update.check_failed', `cannot reach the npm registry ${registry}: ${(error as Error).message}${cause ? ` (${cause})` : ''}`, { registry });
  }
  // An answer, not a failure: `svc update --check` still says which version runs.
  if (res.status === 404) return { published: false, distTags: {}, versions: [] };
  if (!res.ok) throw new SvcError('update.check_failed', `the registry ${registry} answered ${res.status} for ${name}`, { registry, status: res.status });
  const body = (await res.json()) as { 'dist-tags'?: Record<string, string>; versions?: Record<string, unknown> };
  const versions = Object.keys(body.versions ?? {}).filter((v) => valid(v) !== null).sort(rcompare);
  return { published: true, distTags: body['dist-tags'] ?? {}, versions };
}
