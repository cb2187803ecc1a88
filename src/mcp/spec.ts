// Install specs (pure): what `svc mcp install <spec>` and POST /api/mcp/install accept, and
// the id a server gets when none is given. Anything that is none of the forms is refused with
// mcp.invalid_spec naming the field, before anything touches the disk.
import { ArgvSyntaxError, tokenize } from '../lib/shell-words.js';
import { SvcError } from '../protocol/errors.js';
import type { McpTransport } from '../protocol/mcp.js';

export type ParsedSpec =
  | { kind: 'npm'; spec: string; package: string; version: string | null; suggestedId: string }
  | { kind: 'command'; spec: string; command: string; args: string[]; suggestedId: string }
  | { kind: 'remote'; spec: string; transport: Exclude<McpTransport, 'stdio'>; url: string; suggestedId: string }
  | { kind: 'oci'; spec: string; image: string; suggestedId: string }
  | { kind: 'uvx'; spec: string; package: string; suggestedId: string };

const NPM_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;
const NPM_VERSION = /^[A-Za-z0-9.^~<>=*+-]{1,64}$/;
const OCI_IMAGE = /^[a-z0-9][a-z0-9._/-]*(?::[A-Za-z0-9._-]+)?(?:@sha256:[a-f0-9]{64})?$/;
const PYPI_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[A-Za-z0-9,._-]+\])?(?:[=<>!~]=?[A-Za-z0-9.*+-]+)?$/;
const BARE_PROGRAM = /^[A-Za-z0-9._+-]+$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

export const SPEC_FORMS = 'npm:<package>[@version], a command line, an http(s):// URL, oci://<image> or uvx:<package>';

export function invalidSpec(field: string, message: string, value?: string): SvcError {
  return new SvcError('mcp.invalid_spec', `${field}: ${message}`, { problems: [{ path: field, message }], ...(value === undefined ? {} : { spec: value }) });
}

/** Parse an install spec; `field` names it in problems (spec or url); `transport` forces a URL's transport. */
export function parseSpec(raw: string, field = 'spec', transport?: McpTransport): ParsedSpec {
  const spec = raw.trim();
  if (spec === '') throw invalidSpec(field, `expected ${SPEC_FORMS}; got nothing`, raw);
  if (spec.startsWith('npm:')) return parseNpm(spec, field);
  if (/^https?:\/\//i.test(spec)) return parseRemote(spec, field, transport);
  if (spec.startsWith('oci://')) {
    const image = spec.slice('oci://'.length);
    if (!OCI_IMAGE.test(image)) throw invalidSpec(field, `expected oci://<image>[:tag]; got ${JSON.stringify(spec)}`, raw);
    return { kind: 'oci', spec, image, suggestedId: idFrom(image.split(/[:@]/)[0]!.split('/').pop()!) };
  }
  if (spec.startsWith('uvx:')) {
    const pkg = spec.slice('uvx:'.length);
    if (!PYPI_NAME.test(pkg)) throw invalidSpec(field, `expected uvx:<package>; got ${JSON.stringify(spec)}`, raw);
    return { kind: 'uvx', spec, package: pkg, suggestedId: idFrom(pkg.split(/[[=<>!~]/)[0]!) };
  }
  if (SCHEME.test(spec) && !spec.startsWith('/')) throw invalidSpec(field, `expected ${SPEC_FORMS}; got ${JSON.stringify(spec)}`, raw);
  return parseCommand(spec, field);
}

function parseNpm(spec: string, field: string): ParsedSpec {
  const body = spec.slice('npm:'.length);
  // The version follows the last "@" that is not the scope's leading one.
  const at = body.lastIndexOf('@');
  const name = at > 0 ? body.slice(0, at) : body;
  const version = at > 0 ? body.slice(at + 1) : null;
  if (!NPM_NAME.test(name)) throw invalidSpec(field, `expected npm:<package>[@version] with an npm package name; got ${JSON.stringify(spec)}`, spec);
  if (version !== null && !NPM_VERSION.test(version)) throw invalidSpec(field, `expected a version or range after "@"; got ${JSON.stringify(version)}`, spec);
  const [scope, last] = name.startsWith('@') ? (name.slice(1).split('/') as [string, string]) : [undefined, name];
  return { kind: 'npm', spec, package: name, version, suggestedId: idFrom(last, scope) };
}

function parseRemote(spec: string, field: string, transport?: McpTransport): ParsedSpec {
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    throw invalidSpec(field, `expected an http(s) URL; got ${JSON.stringify(spec)}`, spec);
  }
  if (transport === 'stdio') throw invalidSpec('transport', 'a URL is served over streamable-http or sse, not stdio', spec);
  const chosen = transport ?? (/\/sse\/?$/.test(url.pathname) ? 'sse' : 'streamable-http');
  const host = url.hostname.replace(/^(www|mcp|api)\./, '').split('.')[0] ?? 'remote';
  return { kind: 'remote', spec, transport: chosen, url: url.toString(), suggestedId: idFrom(host) };
}

function parseCommand(spec: string, field: string): ParsedSpec {
  let words: string[];
  try {
    words = tokenize(spec);
  } catch (error) {
    if (error instanceof ArgvSyntaxError) throw invalidSpec(field, `not a command line: ${error.message}`, spec);
    throw error;
  }
  const [command, ...args] = words;
  if (command === undefined) throw invalidSpec(field, `expected ${SPEC_FORMS}; got nothing`, spec);
  if (!command.startsWith('/') && !BARE_PROGRAM.test(command)) {
    throw invalidSpec(field, `expected ${SPEC_FORMS}; a command line's program is an absolute path or a name on PATH, got ${JSON.stringify(command)}`, spec);
  }
  // `node /x/server.js` names the server by its script, not by node.
  const named = ['node', 'python', 'python3', 'deno', 'bun'].includes(command.split('/').pop()!) && args[0] ? args[0] : command;
  const base = named.split('/').pop()!.replace(/\.(m?js|cjs|ts|py)$/, '');
  return { kind: 'command', spec, command, args, suggestedId: idFrom(base) };
}

/** A readable id from a package or program name: lowercase, "server-"/"-mcp" trimmed. */
export function idFrom(name: string, scope?: string): string {
  let id = name.toLowerCase().replace(/[^a-z0-9_-]+/g, '-');
  id = id.replace(/^(mcp-server-|server-|mcp-)/, '').replace(/(-mcp-server|-server|-mcp)$/, '');
  if ((id === '' || id === 'mcp' || id === 'server') && scope) id = scope.toLowerCase().replace(/[^a-z0-9_-]+/g, '-');
  id = id.replace(/^[^a-z0-9]+/, '').slice(0, 64);
  return id === '' ? 'server' : id;
}
