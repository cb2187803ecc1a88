// Secrets inside URLs never come back from a read: a settings value, a peer, a tool server or
// an upstream may be configured as `postgres://user:password@host/db`, `https://token@host/`
// or `https://host/mcp?api_key=…`, and anyone who may read (any read scope, a LAN client in
// default mode, the activity log, the event stream) would otherwise see the password.
//
// The mask keeps what identifies the account and hides what proves it: with a password, the
// user name stays (`postgres://svc:***@db/mem`: a role or login name is not a secret, and a
// reader needs it to see which account the gateway uses); a userinfo with no password is
// masked whole (`https://***@host/`), because that form usually carries a token in the user
// slot (GitHub's and GitLab's `https://<token>@…`). Query parameters with secret names
// (`token`, `api_key`, `key`, `password`, `sig`, …) keep their name and lose their value.
//
// A write that sends the masked form back (the dashboard saves what it read) keeps the stored
// secret: keepMaskedSecrets puts the real value back wherever the patch holds exactly the
// masked form of the value it would replace.

export const URL_MASK = '***';

/** `scheme://…` up to whitespace or a character that ends a URL in prose, JSON or markup. */
const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
const SECRET_PARAM = /(^|[_-])(api[_-]?key|key|token|secret|password|passwd|pwd|pass|sig|signature|auth|authorization|credentials?)($|[_-])/i;
const QUERY_PAIR = /([?&#;])([^=&#;]+)=([^&#;]*)/g;

function decoded(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

function maskOne(url: string): string {
  const authorityStart = url.indexOf('://') + 3;
  const authorityLength = url.slice(authorityStart).search(/[/?#]/);
  const authorityEnd = authorityLength < 0 ? url.length : authorityStart + authorityLength;
  let authority = url.slice(authorityStart, authorityEnd);
  // The last "@" ends the userinfo: a password with an unescaped "@" is masked whole.
  const at = authority.lastIndexOf('@');
  if (at > 0) {
    const userinfo = authority.slice(0, at);
    const colon = userinfo.indexOf(':');
    const masked = colon < 0 ? URL_MASK : colon === userinfo.length - 1 ? userinfo : `${userinfo.slice(0, colon)}:${URL_MASK}`;
    authority = `${masked}${authority.slice(at)}`;
  }
  const rest = url.slice(authorityEnd).replace(QUERY_PAIR, (pair, separator: string, name: string, value: string) =>
    value !== '' && SECRET_PARAM.test(decoded(name)) ? `${separator}${name}=${URL_MASK}` : pair);
  return `${url.slice(0, authorityStart)}${authority}${rest}`;
}

/** `text` with the secrets of every URL in it masked (a whole URL, or URLs inside a message). */
export function maskUrlSecrets(text: string): string {
  return text.includes('://') ? text.replace(URL_IN_TEXT, maskOne) : text;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** A copy of `value` with maskUrlSecrets applied to every string, at any depth (keys stay). */
export function maskUrlSecretsIn<T>(value: T): T {
  if (typeof value === 'string') return maskUrlSecrets(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => maskUrlSecretsIn(item)) as T;
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskUrlSecretsIn(item)])) as T;
}

/**
 * `patch` with each string that is exactly the masked form of the string at the same place in
 * `current` replaced by `current`'s: sending back what a read showed changes nothing. Any
 * other string (a new password, a masked URL with another host) is taken as written.
 */
export function keepMaskedSecrets<T>(patch: T, current: unknown): T {
  if (typeof patch === 'string') {
    const stored = typeof current === 'string' && patch !== current && patch.includes(URL_MASK) && maskUrlSecrets(current) === patch;
    return (stored ? current : patch) as T;
  }
  if (Array.isArray(patch)) return patch.map((item: unknown, index) => keepMaskedSecrets(item, Array.isArray(current) ? current[index] : undefined)) as T;
  if (!isPlainObject(patch)) return patch;
  const here = isPlainObject(current) ? current : {};
  return Object.fromEntries(Object.entries(patch).map(([key, item]) => [key, keepMaskedSecrets(item, Object.hasOwn(here, key) ? here[key] : undefined)])) as T;
}
