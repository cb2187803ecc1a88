// The allowlist of the Hindsight per-bank passthrough (docs/memory.md, "Hindsight"): what
// may follow /api/memory/banks/<id>/ and the daemon path it becomes. Anything else, and any
// path with "..", "%", an empty segment or another odd character, is 400 memory.invalid_path
// before a byte leaves the gateway.
import { MemoryError } from '../../protocol/errors.js';

const SEGMENT = '[A-Za-z0-9_.:-]{1,200}';

/** [pattern, methods]; `recall` is the daemon's /memories/recall. */
const ALLOWED: ReadonlyArray<[RegExp, readonly string[]]> = [
  [/^stats(\/timeseries)?$/, ['GET']],
  [/^(profile|config)$/, ['GET', 'PUT', 'PATCH']],
  [/^graph$/, ['GET']],
  [new RegExp(`^entities(/graph|/${SEGMENT})?$`), ['GET']],
  [new RegExp(`^memories(/${SEGMENT}(/history)?)?$`), ['GET', 'PATCH']],
  [new RegExp(`^documents(/${SEGMENT}(/reprocess)?)?$`), ['GET', 'POST', 'DELETE']],
  [/^tags$/, ['GET']],
  [/^(recall|reflect)$/, ['POST']],
  [new RegExp(`^(mental-models|directives|operations)(/${SEGMENT}(/(refresh|retry))?)?$`), ['GET', 'POST', 'PATCH', 'DELETE']],
  [/^(consolidate|consolidation\/recover)$/, ['POST']],
  [/^(export|import)$/, ['GET', 'POST']],
  [/^document-transfer$/, ['GET', 'POST']],
];

/** The daemon path (without the bank prefix) for an allowed per-bank call. */
export function checkPassthroughPath(method: string, subpath: string): string {
  const safe = !subpath.includes('..') && !subpath.includes('%') && !subpath.split('/').includes('');
  const entry = safe ? ALLOWED.find(([pattern]) => pattern.test(subpath)) : undefined;
  if (!entry || !entry[1].includes(method)) {
    throw new MemoryError('memory.invalid_path', `${method} /api/memory/banks/<id>/${subpath.slice(0, 120)} is not on the Hindsight passthrough's allowlist`, { path: subpath.slice(0, 200), method });
  }
  return subpath === 'recall' ? 'memories/recall' : subpath;
}
