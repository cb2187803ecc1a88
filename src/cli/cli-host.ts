// What only the composition root (bin/main.ts) joins in to the command tree, each loaded when
// its command runs: starting the gateway; `svc doctor`'s battery, which probes the hardware,
// looks for engine binaries and reads the model store; and the hardware probe `svc setup`
// shows before any gateway runs. The CLI's import closure holds none of them
// (test/cli-import-closure.test.ts).
import type { runDoctor } from '../doctor/checks.js';
import type * as SetupHost from '../setup/host.js';

export interface ServeCommandOptions {
  host?: string;
  port?: number;
  reload: boolean;
}

export type ServeAction = (options: ServeCommandOptions) => Promise<void>;

export interface CliHost {
  readonly serve: ServeAction;
  readonly runDoctor: typeof runDoctor;
  readonly setupHost: () => Promise<typeof SetupHost>;
}
