// `$ref` inside one schema document: `#` (the root itself) and JSON pointers into its
// `$defs` or `definitions`, the places schemas keep shared and recursive parts. Other
// documents (URLs), anchors and pointers elsewhere are refused.
import { SchemaProblem, childPath, isObject, itemPath } from './schema-check.js';

export interface RefTarget {
  schema: unknown;
  /** The pointer, as written, that names it (the key its rule is kept under). */
  pointer: string;
  /** Where the target is in the request, for problems inside it. */
  path: string;
  /** A rule name for it: the definition's name. */
  hint: string;
}

const ALLOWED = ['#/$defs/', '#/definitions/'];

function segmentsOf(pointer: string, refPath: string): string[] {
  try {
    return pointer.slice(2).split('/').map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'));
  } catch {
    throw new SchemaProblem(refPath, `is not a valid JSON pointer: ${JSON.stringify(pointer)}`);
  }
}

/** What `pointer` names in `root`; throws SchemaProblem at `refPath` when it points elsewhere or at nothing. */
export function resolveRef(pointer: string, root: unknown, rootPath: string, refPath: string): RefTarget {
  if (pointer === '#') return { schema: root, pointer, path: rootPath, hint: 'root-ref' };
  if (!ALLOWED.some((prefix) => pointer.startsWith(prefix))) {
    throw new SchemaProblem(refPath, `must point into this schema's $defs or definitions ("#/$defs/Name"); got ${JSON.stringify(pointer)}`);
  }
  let node = root;
  let path = rootPath;
  const segments = segmentsOf(pointer, refPath);
  for (const segment of segments) {
    if (Array.isArray(node) && /^(0|[1-9][0-9]*)$/.test(segment) && Number(segment) < node.length) {
      node = node[Number(segment)];
      path = itemPath(path, Number(segment));
    } else if (isObject(node) && Object.hasOwn(node, segment)) {
      node = node[segment];
      path = childPath(path, segment);
    } else {
      throw new SchemaProblem(refPath, `does not resolve: nothing in the schema at ${JSON.stringify(pointer)}`);
    }
  }
  return { schema: node, pointer, path, hint: segments[segments.length - 1] || 'ref' };
}
