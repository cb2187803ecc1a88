// Lint config. Besides the usual rules it enforces the layer map (docs/development.md, "The
// layer map", which a test holds to these lists): each folder under src/ may import only
// the layers below it, the CLI only what it is allowed, and the dashboard (web/) only
// src/protocol, which stays browser-safe.
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers, bottom to top. Where each sits, and why:
 * - lib: general helpers several layers use (a queue, process and port helpers, tar, shell
 *   words, where svc's own files are); it imports nothing of the project.
 * - protocol: wire types and pure wire logic, shared by the server, the CLI and the dashboard,
 *   whose bundle runs it in the browser: it imports nothing else of src/ (not even lib, which
 *   is Node's) and no package but PROTOCOL_PACKAGES.
 * - deploy: the systemd units svc installs (the gateway's own unit text, installing, stopping
 *   and reading a unit, finding the programs they run). setup installs the gateway's unit,
 *   `svc auth` the proxy's (auth/proxy renders it), doctor reads their state, all from the CLI.
 * - update sits low: its arrows point only at config, events and activity. The server exposes
 *   it (/api/updates, through a narrow UpdateHost) and its worker runs as its own process.
 * - setup and doctor are the host's operations that run without a gateway (first-run
 *   provisioning, the gateway's unit, uninstall; the preflight checks). They sit above what
 *   they install or inspect (host, auth's proxy, engines, models, update) and below slots:
 *   they never reach the runtime that a live gateway owns, so the CLI may use them, and what
 *   it loads through them holds no engine, model or host code (test/cli-import-closure.test.ts;
 *   svc doctor's battery and svc setup's probe come from bin, CliHost). Provisioning, which a
 *   gateway runs, gets slot creation handed in (setup/provision.ts, ProvisionHost).
 * - mcp (tool servers: records, installs, the stdio supervisor, the SDK client pool, policies,
 *   approvals) sits above slots, whose process helpers it reuses; omni (the server-side tool
 *   loop) above dispatch and mcp: it calls models through the one and tools through the other.
 * - server exposes everything below it; the CLI talks to it over HTTP (CLI_MAY_IMPORT). The
 *   operations a gateway runs sit below it today (provisioning, the stacks' apply, profile
 *   changes, the model registry's service, updates), handed what they need through narrow
 *   interfaces (docs/development.md).
 */
export const LAYERS = ['lib', 'protocol', 'config', 'deploy', 'activity', 'events', 'update', 'host', 'auth', 'engines', 'models', 'setup', 'doctor', 'slots', 'mcp', 'peers', 'dispatch', 'omni', 'memory', 'agents', 'stacks', 'server', 'cli'];

/**
 * Layers that sit beside one below them rather than above it, and may not import it: protocol
 * beside lib (lib is Node helpers, protocol also runs in the browser), events
 * is a peer of activity (both are records slots and the server write to), and doctor of setup
 * (it checks what setup installed through the files, not through setup's code).
 */
export const BESIDE = { protocol: ['lib'], events: ['activity'], doctor: ['setup'] };

/**
 * The CLI talks to the gateway through its typed HTTP client (src/cli/client.ts). Besides
 * that it may use the wire types and libraries made for use without a gateway, never another
 * layer's internals: the configuration files (`svc config`, `svc registry` edit them offline),
 * the systemd units (deploy), setup and doctor, the auth proxy's deployment (`svc auth
 * enable|disable`), the activity inbox, which leaves a row for the gateway to record instead
 * of opening the database, and the read-only look at a legacy Cognee index (`svc memory
 * migrate`'s dry run).
 */
export const CLI_MAY_IMPORT = ['lib', 'protocol', 'config', 'deploy', 'setup', 'doctor', 'auth/proxy', 'activity/inbox', 'memory/legacy-cognee'];

/**
 * The packages src/protocol may import. The dashboard runs protocol's code in the browser
 * (request schemas for in-form validation, the slot file's field rules, vocabulary), so it
 * takes nothing of Node: pure JavaScript packages only.
 */
export const PROTOCOL_PACKAGES = ['zod', 'semver'];

/**
 * What web/ may import of src/: protocol alone, values as well as types. The dashboard checks
 * a form with the very schema the server parses the request with; a copy would drift.
 * PROTOCOL_PACKAGES and protocol's place at the bottom of the map keep that code pure.
 */
export const WEB_MAY_IMPORT = ['protocol'];

/** What src/<layer>/ may import: itself, and for the CLI its list, else every layer below but its peers. */
export function mayImport(layer) {
  if (layer === 'cli') return CLI_MAY_IMPORT;
  return LAYERS.slice(0, LAYERS.indexOf(layer)).filter((below) => !(BESIDE[layer] ?? []).includes(below));
}

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), 'src');

/** The rule's listener for every kind of import, dynamic `import()` included. */
function onImports(check) {
  return {
    ImportDeclaration: (node) => check(node.source),
    ExportNamedDeclaration: (node) => check(node.source),
    ExportAllDeclaration: (node) => check(node.source),
    ImportExpression: (node) => check(node.source),
  };
}

/** One rule for the whole map; it reads relative imports, dynamic import() included. */
const layerImports = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const from = relative(SRC, context.filename).split(sep);
    const layer = from[0];
    if (from.length < 2 || !LAYERS.includes(layer)) return {}; // outside the map: bin/, tests under test/
    const allowed = mayImport(layer);
    const check = (source) => {
      if (typeof source?.value !== 'string' || !source.value.startsWith('.')) return;
      const target = relative(SRC, resolve(dirname(context.filename), source.value)).split(sep).join('/').replace(/\.(js|ts)$/, '');
      const into = target.split('/')[0];
      if (target.startsWith('..') || into === layer) return;
      if (allowed.some((entry) => target === entry || target.startsWith(`${entry}/`))) return;
      const why = layer === 'cli' ? `the CLI may import only ${CLI_MAY_IMPORT.join(', ')} and its own files`
        : allowed.length === 0 ? `src/${layer} imports nothing else of src/` : `src/${layer} may import only ${allowed.join(', ')}`;
      context.report({ node: source, message: `${why}, not src/${target} (docs/development.md, "The layer map").` });
    };
    return onImports(check);
  },
};

/** src/protocol's packages: PROTOCOL_PACKAGES only (its tests, which never reach the browser, aside). */
const protocolPackages = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    return onImports((source) => {
      if (typeof source?.value !== 'string' || source.value.startsWith('.')) return;
      const name = source.value.split('/').slice(0, source.value.startsWith('@') ? 2 : 1).join('/');
      if (PROTOCOL_PACKAGES.includes(name)) return;
      context.report({ node: source, message: `src/protocol runs in the browser too and may import only ${PROTOCOL_PACKAGES.join(', ')}, not ${source.value} (docs/development.md, "The layer map").` });
    });
  },
};

/** web/'s imports of src/: WEB_MAY_IMPORT only. */
const webImports = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    return onImports((source) => {
      if (typeof source?.value !== 'string' || !source.value.startsWith('.')) return;
      const target = relative(SRC, resolve(dirname(context.filename), source.value)).split(sep).join('/');
      if (target.startsWith('..')) return; // web/'s own files
      if (WEB_MAY_IMPORT.some((entry) => target.startsWith(`${entry}/`))) return;
      context.report({ node: source, message: `web/ may import only src/${WEB_MAY_IMPORT.join(', src/')} of src/, not src/${target} (docs/development.md, "The layer map").` });
    });
  },
};

const svcRules = { rules: { 'layer-imports': layerImports, 'protocol-packages': protocolPackages, 'web-imports': webImports } };

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.svc-home/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', AbortController: 'readonly', fetch: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { svc: svcRules },
    rules: { 'svc/layer-imports': 'error' },
  },
  {
    files: ['src/protocol/**/*.ts'],
    ignores: ['src/protocol/**/*.test.ts'],
    plugins: { svc: svcRules },
    rules: { 'svc/protocol-packages': 'error' },
  },
  {
    files: ['web/**/*.ts', 'web/**/*.tsx'],
    plugins: { svc: svcRules },
    rules: { 'svc/web-imports': 'error' },
  },
);
