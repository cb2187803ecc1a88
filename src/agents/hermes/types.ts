// The shapes of the hermes phase machine (docs/agents.md, "hermes"): the 16 phases in their order, a
// phase's result, and provision.json as it is written. The spec's `hal0_version` is
// `svc_version` here (svc is the product's name in this repository).
import type { AgentPaths, GatewayWiring } from '../driver.js';

export const HERMES_PHASES = [
  'preflight', 'install', 'env_probe', 'home_init', 'install_artifacts', 'persona_seed', 'config_write', 'mcp_wire',
  'context_link', 'namespace_register', 'model_automap', 'voice_wire', 'ownership_reconcile', 'gateway_secrets_wire',
  'smoke_tests', 'self_report',
] as const;
export type HermesPhase = (typeof HERMES_PHASES)[number];

export const PHASE_STATUSES = ['ok', 'skip', 'fail', 'repair_needed'] as const;
export type PhaseStatus = (typeof PHASE_STATUSES)[number];

export interface PhaseRecord {
  status: PhaseStatus;
  /** sha256 of what the phase wrote: a rerun with the same hash (and the files in place) skips. */
  hash?: string;
  reason?: string;
  /** A failed fatal phase stops the run (the later phases skip, ownership_reconcile still runs). */
  fatal?: boolean;
  details?: Record<string, unknown>;
  at: string;
}

export interface ProvisionRecord {
  schema_version: 1;
  started_at: string;
  completed_at: string;
  svc_version: string;
  hermes_version: string | null;
  hermes_home: string;
  venv: string;
  agent_id: string;
  phases: Partial<Record<HermesPhase, PhaseRecord>>;
  errors: Array<{ phase: HermesPhase; reason: string }>;
}

export interface ProvisionOptions {
  repair?: boolean;
  skipPhases?: readonly string[];
  dryRun?: boolean;
  offline?: boolean;
  adopt?: boolean;
  verbose?: boolean;
  /** A version asked for (install --to / install with a version); the runtime must report it. */
  version?: string;
}

/** One entry of GET /v1/models, as much as the phases read. */
export interface ModelEntryLite {
  id: string;
  owned_by?: string;
  name?: string;
}

/** What the gateway lends the machine: nothing here reaches into the server. */
export interface ProvisionDeps {
  paths: AgentPaths;
  wiring: GatewayWiring;
  /** GET /v1/models of this gateway. */
  models: () => Promise<ModelEntryLite[]>;
  /** Tool servers this gateway serves over HTTP: name -> URL (/mcp/admin/mcp, /mcp/memory/mcp). */
  mcpServers: () => Promise<Record<string, string>>;
  /** Memory, when on: adds the identity card; null when memory is off (namespace_register skips). */
  memory: null | { add: (body: { text: string; dataset: string; tags: string[]; metadata: Record<string, unknown> }) => Promise<{ id: string }> };
  /** Enabled transcription and tts slots (voice_wire). */
  voiceSlots: () => { stt: string | null; tts: string | null };
  /** The environment the runtime is looked up in (SVC_HERMES_RUNTIME, PATH, PIP_INDEX_URL). */
  env: NodeJS.ProcessEnv;
}

/** What a phase returns; the machine adds `at` and writes the record. */
export type PhaseOutcome = Omit<PhaseRecord, 'at'>;

export interface ProvisionResult {
  ok: boolean;
  dry_run: boolean;
  provision: ProvisionRecord;
  /** Where provision.json is (not written in a dry run). */
  provision_path: string;
}
