// What the install form sends, and where the server's refusal goes. One field takes a spec
// or a URL (the page tells them apart the way the server does: an http(s) URL is a remote
// server, anything else a spec), so the server's problems about either land beside it.
import type { McpInstallRequest } from '../../../../src/protocol/mcp.js';
import { ApiError } from '../../api-error.js';
import { problemsOfError, type Problems } from '../../field-problems.js';

/** The id grammar of a tool server (mcp.invalid_id): it names a file, so never a path. */
export const SERVER_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const isUrl = (source: string): boolean => /^https?:\/\//i.test(source.trim());

export function installRequest(source: string, id: string): McpInstallRequest {
  const text = source.trim();
  return { ...(isUrl(text) ? { url: text } : { spec: text }), ...(id.trim() && { id: id.trim() }) };
}

/** The form's own check as the user types: what the server would refuse for sure. */
export function checkInstall(source: string, id: string, hostAuthority: boolean): Problems {
  const problems: Problems = {};
  if (source.trim() === '') problems.source = 'a spec (npm:<package>[@version], a command line) or an http(s) URL';
  else if (!isUrl(source) && !hostAuthority) problems.source = 'a spec runs a program on the gateway\'s host: only this host or an admin token may install one (a URL server is fine)';
  if (id.trim() !== '' && !SERVER_ID.test(id.trim())) problems.id = '1 to 64 of a-z, 0-9, "-" and "_", starting with a letter or digit';
  return problems;
}

const FIELD_OF_CODE: Record<string, string> = {
  'mcp.invalid_spec': 'source',
  'mcp.runtime_missing': 'source',
  'config.host_only': 'source',
  'mcp.invalid_id': 'id',
  'mcp.already_installed': 'id',
  'mcp.id_reserved': 'id',
};

/** The server's problems keyed by the form's fields (spec and url are one field here). */
export function installProblems(error: unknown): Problems {
  const out: Problems = {};
  for (const [path, message] of Object.entries(problemsOfError(error))) {
    const field = /^(spec|url|manifest)\b/.test(path) ? 'source' : /^id\b/.test(path) ? 'id' : '';
    // A problem deeper than the field's own key (manifest.transport) says which part it is about.
    out[field] ??= /^(spec|url|id)$/.test(path) || path === '' ? message : `${path}: ${message}`;
  }
  if (error instanceof ApiError) {
    const field = FIELD_OF_CODE[error.code];
    if (field && !out[field]) out[field] = `${error.code}: ${error.message}`;
  }
  return out;
}
