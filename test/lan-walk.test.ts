// The LAN walk (issue 36, "How to prove it"): from a client in a network namespace of this
// test's own, every field of every resource that reaches an engine's command line,
// environment or files (and every program, file or URL svc itself runs, reads or connects
// to) is sent with a hostile value, and each must be refused (403 config.host_only naming the
// key, 400, or 404 for a name of nothing) with nothing written: the temp home (config, state,
// models) is the same file for file afterwards. The fields come from the real schemas
// (test/helpers/schema-fields.ts), the routes from the access table, the svc-admin tools from
// their own list: one that is neither walked (helpers/lan-walk-cases.ts) nor exempt with a
// reason (helpers/lan-walk-exempt.ts) fails here, so the next field is covered by default.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_ACCESS_TABLE } from '../src/protocol/access.js';
import { canonicalJson } from '../src/protocol/canonical-json.js';
import { svcAdminTools } from '../src/server/mcp-admin/tools.js';
import type { ServerContext } from '../src/server/context.js';
import { api, type Gateway, startGateway, type TempHome } from './helpers/gateway.js';
import { type Lan, type LanAnswer, lanSkipReason, openLan } from './helpers/lan.js';
import { type Expect, type HttpCase, routeCases, toolCases, walkCases, type WalkContext } from './helpers/lan-walk-cases.js';
import { ROUTES_WITHOUT_ENGINE_INPUT, UNREACHABLE, UNREACHABLE_ADMIN_ARGS, WHOLE_SCHEMAS } from './helpers/lan-walk-exempt.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { exportedSchemas, fieldPaths, schemaModulesOutsideTheWalk } from './helpers/schema-fields.js';

const skip = lanSkipReason();
let home: TempHome;
let gateway: Gateway;
let lan: Lan;
let exported: Record<string, unknown>;

/** The stack `base` as exported, as slug `walks`, changed by `edit`, with its checksum made right again. */
function envelope(edit: (stack: Record<string, unknown>) => void): Record<string, unknown> {
  const copy = structuredClone(exported) as { stack: Record<string, unknown>; checksum: string };
  copy.stack.slug = 'walks';
  edit(copy.stack);
  copy.checksum = `sha256:${createHash('sha256').update(canonicalJson(copy.stack)).digest('hex')}`;
  return copy;
}
const context = (): WalkContext => ({ port: gateway?.port ?? 8080, envelope: (edit) => (exported ? envelope(edit) : {}) });

/** Every file of the temp home and its content's hash, but the activity log (a refusal is a row there: docs/auth.md) and logs. */
function snapshot(): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(home.home, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = relative(home.home, join(entry.parentPath, entry.name));
    // An atomic write's temp file is renamed to its target within the write: the target is what counts.
    if (/(^|\/)activity\.db(-wal|-shm|-journal)?$|\.log$|\.svc-tmp-[^/]*$/.test(path)) continue;
    // A file may go while the walk reads (an atomic write's temp file): what is left is what counts.
    const text = (() => {
      try {
        return readFileSync(join(home.home, path));
      } catch {
        return null;
      }
    })();
    if (text !== null) files.set(path, createHash('sha256').update(text).digest('hex'));
  }
  return files;
}

function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((path) => before.get(path) !== after.get(path)).sort();
}

/** Why an answer is not the refusal `expect` asks for, or null. */
function mismatch(answer: LanAnswer, expected: Expect): string | null {
  const code = answer.json?.error?.code;
  if (answer.status !== expected.status || typeof code !== 'string') return `${answer.status} ${answer.text.slice(0, 300)}`;
  if (expected.status !== 403) return null;
  if ('code' in expected) return code === expected.code ? null : `403 ${code}`;
  if (code !== 'config.host_only') return `403 ${code}`;
  const keys: string[] = answer.json.error.details?.keys ?? [];
  const found = expected.key.endsWith('…') ? keys.some((key) => key.startsWith(expected.key.slice(0, -1))) : keys.includes(expected.key);
  return found ? null : `403 naming ${JSON.stringify(keys)}, not ${expected.key}`;
}

async function walk(cases: Array<[string, HttpCase]>): Promise<string[]> {
  const failures: string[] = [];
  for (const [name, c] of cases) {
    const before = snapshot();
    const answer = await lan.request(`${lan.url(gateway.port)}${c.path}`, { method: c.method, body: c.body });
    const wrong = mismatch(answer, c.expect);
    const written = changed(before, snapshot());
    if (wrong) failures.push(`${name}: ${c.method} ${c.path}: expected ${c.expect.status}, got ${wrong}`);
    if (written.length > 0) failures.push(`${name}: ${c.method} ${c.path} wrote ${written.join(', ')}`);
  }
  return failures;
}

const httpCases = () => [
  ...Object.entries(walkCases(context())).flatMap(([schema, fields]) => Object.entries(fields).map(([field, c]): [string, HttpCase] => [`${schema} ${field}`, c])),
  ...Object.entries(routeCases()),
];

beforeAll(async () => {
  if (skip) return;
  home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin' }]);
  // No engine runs: a slot's state file changes only when a request changes something.
  home.write('svc.toml', '[slots]\nstart_at_boot = false\n\n[mcp]\nallowed_hosts = ["10.0.0.9:9"]\n');
  [gateway, lan] = await Promise.all([startGateway(home.home, { args: ['--host', '0.0.0.0'] }), openLan()]);
  const row = (extra: string) => ({ slot: 'p', model: 'tiny', device: 'cpu', provider: 'llama-server', server_extra_args: extra });
  const setup: Array<[string, string, unknown]> = [
    ['POST', '/api/profiles', { name: 'warm', image: '', device_class: 'cpu', flags: '--temp 0.7' }],
    ['POST', '/api/stacks', { slug: 'base', name: 'base', slots: [row('-t 2')] }],
    ['POST', '/api/stacks', { slug: 'filer', name: 'filer', slots: [row('--slot-save-path /tmp/s')] }],
    ['POST', '/api/mcp/install', { manifest: { id: 'tool', transport: 'stdio', command: process.execPath, args: ['-e', ''] }, enabled: false }],
    ['POST', '/api/mcp/install', { url: 'http://10.0.0.9:9/mcp', id: 'remote', enabled: false }],
  ];
  for (const [method, path, body] of setup) {
    const answer = await api(gateway.url, path, { method, body });
    if (answer.status >= 300) throw new Error(`setup ${method} ${path}: ${answer.status} ${answer.text}`);
  }
  exported = (await api(gateway.url, '/api/stacks/base/export')).json;
  const personas = join(home.stateRoot, 'agents/hermes/data/personas');
  mkdirSync(personas, { recursive: true });
  writeFileSync(join(personas, 'walker.toml'), '[persona]\nid = "walker"\ndisplay_name = "Walker"\n');
}, 60_000);
afterAll(async () => {
  lan?.close();
  await gateway?.stop();
});

describe('the walk covers every field', () => {
  it('finds every schema where the walk looks for them', () => {
    expect(schemaModulesOutsideTheWalk()).toEqual([]);
  });

  it('walks every field of every schema, or says why it cannot reach an engine', async () => {
    const cases = walkCases(context());
    const missing: string[] = [];
    const stale: string[] = [];
    const schemas = await exportedSchemas();
    for (const [id, schema] of schemas) {
      if (id in WHOLE_SCHEMAS) continue;
      const fields = fieldPaths(schema);
      const walked = { ...cases[id], ...UNREACHABLE[id] };
      missing.push(...fields.filter((field) => !(field in walked)).map((field) => `${id} ${field}`));
      stale.push(...Object.keys(walked).filter((field) => !fields.includes(field)).map((field) => `${id} ${field}`));
    }
    for (const id of [...Object.keys(cases), ...Object.keys(UNREACHABLE), ...Object.keys(WHOLE_SCHEMAS)]) if (!schemas.has(id)) stale.push(id);
    expect(missing, 'fields neither walked nor exempt').toEqual([]);
    expect(stale, 'walk entries for fields or schemas that do not exist').toEqual([]);
  });

  it('sends to every route that changes something, or says why it takes no engine input', () => {
    const sent = httpCases().map(([, c]) => `${c.method} ${c.path}`);
    const pattern = (route: string) => new RegExp(`^${route.replace(/:[a-z]+/g, '[^/]+').replace(/\*/g, '.*').replace(/^\\\* /, '[A-Z]+ ')}$`);
    const routes = Object.keys(ROUTE_ACCESS_TABLE).filter((route) => !route.startsWith('GET ') && !/^\S+ \/v1\//.test(route));
    const unwalked = routes.filter((route) => route !== 'POST /mcp/admin/mcp' && !(route in ROUTES_WITHOUT_ENGINE_INPUT) && !sent.some((request) => pattern(route).test(request)));
    expect(unwalked).toEqual([]);
    expect(Object.keys(ROUTES_WITHOUT_ENGINE_INPUT).filter((route) => !(route in ROUTE_ACCESS_TABLE))).toEqual([]);
  });

  it('walks every argument of the svc-admin tools that change something, or says why not', () => {
    const tools = svcAdminTools({} as ServerContext).filter((tool) => !tool.read_only);
    const args = tools.flatMap((tool) => Object.keys((tool.input_schema.properties ?? {}) as object).map((arg) => `${tool.name} ${arg}`));
    const walked = toolCases(context());
    const exempt = (arg: string) => arg in UNREACHABLE_ADMIN_ARGS || `${arg.split(' ')[0]} *` in UNREACHABLE_ADMIN_ARGS;
    expect(args.filter((arg) => !(arg in walked) && !exempt(arg))).toEqual([]);
  });
});

describe.skipIf(skip)(`the LAN walk ${skip ?? ''}`, () => {
  it('refuses a hostile value in every field from the LAN and writes nothing', async () => {
    expect(await walk(httpCases())).toEqual([]);
  }, 180_000);

  it('refuses a hostile argument of every svc-admin tool and writes nothing', async () => {
    const failures: string[] = [];
    for (const [name, call] of Object.entries(toolCases(context()))) {
      const before = snapshot();
      const answer = await lan.request(`${lan.url(gateway.port)}/mcp/admin/mcp`, {
        method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: call.tool, arguments: call.arguments } },
      });
      const data = answer.text.split('\n').find((line) => line.startsWith('data: '));
      const result = data ? JSON.parse(data.slice('data: '.length)).result : answer.json?.result;
      if (result?.isError !== true) failures.push(`${name}: not refused: ${answer.status} ${answer.text.slice(0, 300)}`);
      const written = changed(before, snapshot());
      if (written.length > 0) failures.push(`${name} wrote ${written.join(', ')}`);
    }
    expect(failures).toEqual([]);
  });
});
