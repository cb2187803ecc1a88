// The dependencies McpService takes (so tests need no gateway), and what its parts
// (lifecycle, records, catalog) share with it.
import type { ActivityInput } from '../activity/store.js';
import type { SvcPaths } from '../config/paths.js';
import type { SvcToml } from '../config/schema/svc-toml.js';
import type { SerialQueue } from '../lib/serial-queue.js';
import type { EventInput } from '../protocol/events.js';
import type { McpServerRecord, ToolPolicyLists } from '../protocol/mcp.js';
import type { ServerSupervisor } from './supervisor.js';
import type { BundledTool } from './tool-host.js';
import { guardFor, type Listener, type TargetGuard } from './url-guard.js';

export type McpSettings = SvcToml['mcp'];

export interface McpServiceDeps {
  paths: SvcPaths;
  /** The current [mcp] section (read at each use, so a settings change applies live). */
  settings(): McpSettings;
  publish(event: EventInput): void;
  record(entry: ActivityInput): void;
  /** api.env's entries (secrets are read from it at each start). */
  readApiEnv(): Promise<Record<string, string>>;
  /** The environment npm and PATH lookups see (process.env by default). */
  env?: NodeJS.ProcessEnv;
  /** One writer for configuration files (the gateway's); a private one by default. */
  writes?: SerialQueue;
  /** First restart delay after a crash (tests shorten it). */
  backoffBaseMs?: number;
  log?(line: string): void;
  /** Where the gateway listens: a URL on a listed host never connects there (url-guard.ts). */
  listeners?(): readonly Listener[];
}

/** The check of every connection to a remote record's URL, or null (stdio, or a host not in [mcp].allowed_hosts). */
export function connectionGuard(deps: McpServiceDeps, record: McpServerRecord): TargetGuard | null {
  if (record.transport === 'stdio') return null;
  return guardFor(record.url, deps.settings().allowed_hosts, () => deps.listeners?.() ?? []);
}

/** What the helpers (lifecycle, records, catalog) share with the service. */
export interface McpInternals {
  deps: McpServiceDeps;
  servers: Map<string, ServerSupervisor>;
  bundled: Map<string, { tools: BundledTool[]; policy: ToolPolicyLists; enabled?: () => boolean }>;
  writes: SerialQueue;
  loaded(): Promise<void>;
  supervise(record: McpServerRecord): ServerSupervisor;
  /** The installed server, or mcp.bundled (for a bundled id) / mcp.not_found. */
  installed(id: string, action: string): ServerSupervisor;
}
