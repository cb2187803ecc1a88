// The seam between the agents service (the registry, the install jobs, the routes) and one
// kind of agent: pi (src/agents/pi/) and hermes (src/agents/hermes/) each implement it. The
// service owns the agent file (<config>/agents/<name>.toml), the job and its events; a driver
// owns what it installs under its directories and how it is wired to this gateway.
import type { AgentKind } from './names.js';

/** Where one agent's things live; the service makes these from the home, the driver uses them. */
export interface AgentPaths {
  /** <state>/agents/<name>: what svc installed (npm prefix, venv, unit files). */
  installDir: string;
  /** <state>/agents/<name>/data: the agent's own data (sessions, personas); kept by uninstall unless purged. */
  dataDir: string;
  /** <state>/agents/<name>/provision: provision.json and provision-logs/<phase>.log. */
  stateDir: string;
  /** <config>/agents/<name>.toml */
  configPath: string;
}

/** What the gateway tells a driver about itself, to wire the agent to it. */
export interface GatewayWiring {
  /** http://127.0.0.1:<port>/v1 */
  v1Url: string;
  /** http://127.0.0.1:<port> */
  apiUrl: string;
  /** An `inference`-scoped token in auth mode (stored by the driver 0600), null when auth is off. */
  token: string | null;
  /** Chat model ids from /v1/models. */
  chatModels: string[];
  /** svc's version. */
  svcVersion: string;
}

export interface InstallOptions {
  version?: string;
  offline?: boolean;
  adopt?: boolean;
  dryRun?: boolean;
  repair?: boolean;
  skipPhases?: string[];
}

/** A step's progress, published by the service as an `agent.install.progress` event. */
export type ProgressSink = (step: string, message: string, data?: Record<string, unknown>) => void;

export interface UninstallReport {
  removed: string[];
  residual: Array<{ path: string; reason: string }>;
}

export interface AgentDriver {
  name: string;
  kind: AgentKind;
  /** Installs (or repairs) and wires; resolves to the installed version. Throws SvcError on failure. */
  install(paths: AgentPaths, wiring: GatewayWiring, options: InstallOptions, progress: ProgressSink): Promise<{ version: string }>;
  upgrade?(paths: AgentPaths, wiring: GatewayWiring, to: string | undefined, progress: ProgressSink): Promise<{ version: string }>;
  /** Removes what install put there; keeps dataDir unless purge. */
  uninstall(paths: AgentPaths, options: { purge: boolean }): Promise<UninstallReport>;
  /** The installed version, or null when not installed / broken. */
  installedVersion(paths: AgentPaths): Promise<string | null>;
}
