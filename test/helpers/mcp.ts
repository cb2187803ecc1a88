// A McpService on a fresh SVC_HOME, without a gateway: its events and activity rows are kept
// in arrays the test reads, its [mcp] settings are the defaults with the test's changes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ActivityInput } from '../../src/activity/store.js';
import { readEnvFile } from '../../src/config/env-file.js';
import { resolvePaths } from '../../src/config/paths.js';
import { SvcTomlSchema } from '../../src/config/schema/svc-toml.js';
import { McpService, type McpSettings } from '../../src/mcp/service.js';
import type { EventInput } from '../../src/protocol/events.js';

export const FIXTURE_SERVER = fileURLToPath(new URL('../fixtures/mcp-fixture-server.mjs', import.meta.url));
/** The install spec (a command line) that runs the fixture server with these flags. */
export const fixtureSpec = (...flags: string[]) => [process.execPath, FIXTURE_SERVER, ...flags].join(' ');

export interface McpHarness {
  service: McpService;
  home: string;
  paths: ReturnType<typeof resolvePaths>;
  events: EventInput[];
  rows: ActivityInput[];
  settings: McpSettings;
}

export function mcpHarness(overrides: Partial<McpSettings> = {}, options: { backoffBaseMs?: number; env?: NodeJS.ProcessEnv; home?: string } = {}): McpHarness {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'svc-mcp-'));
  const paths = resolvePaths({ env: { SVC_HOME: home }, isRoot: false, homeDir: home, exists: () => false });
  const settings: McpSettings = { ...SvcTomlSchema.parse({}).mcp, ...overrides };
  const events: EventInput[] = [];
  const rows: ActivityInput[] = [];
  const service = new McpService({
    paths,
    settings: () => settings,
    publish: (event) => events.push(event),
    record: (row) => rows.push(row),
    readApiEnv: () => readEnvFile(paths.apiEnv),
    env: options.env ?? process.env,
    backoffBaseMs: options.backoffBaseMs ?? 20,
  });
  return { service, home, paths, events, rows, settings };
}
