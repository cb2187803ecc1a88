// Container image references (the OCI distribution reference grammar, as docker and podman
// parse them): [host[:port]/]path[:tag][@digest]. A profile's image is one argv element of
// `podman run`, so a value that is not a reference (say "--volume=/:/host") would be read as
// an option of the runtime instead of an image: anything off the grammar is refused.

const ALNUM = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|-+)';
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[0-9a-fA-F:]+\\])(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*(?::${TAG})?(?:@${DIGEST})?$`);
/** The grammar's limit on the name part (domain and path). */
const MAX_NAME_LENGTH = 255;

/** Whether `value` is an image reference a container runtime reads as one (never an option). */
export function isImageReference(value: string): boolean {
  if (!REFERENCE.test(value)) return false;
  const name = value.split('@')[0]!.replace(/:[\w][\w.-]{0,127}$/, '');
  return name.length <= MAX_NAME_LENGTH;
}

export const IMAGE_REFERENCE_RULE = 'expected a container image reference ([registry[:port]/]name[:tag][@sha256:…], lower-case name), or "" for an engine run as a process';
