// svc uninstall: conservative by default (stops svc, removes its units and installed
// versions, keeps config and state); --purge removes config and state too, after the user
// types the hostname or DELETE (or --force). Every step is one line; exit 1 only when a
// step failed, listing what was left.
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { loadConfig } from '../../config/load.js';
import { hostFacts, resolvePaths, type SvcPaths } from '../../config/paths.js';
import { configuredStore, uninstall } from '../../setup/uninstall.js';
import { CliExit, EXIT, print, printJson } from '../output.js';

export interface UninstallCommandOptions {
  purge?: boolean;
  cleanSlate?: boolean;
  keepData?: boolean;
  force?: boolean;
  dev?: boolean;
  json?: boolean;
}


async function confirmPurge(paths: SvcPaths): Promise<void> {
  const host = hostname();
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`This removes ${paths.configRoot} and ${paths.stateRoot}. Type the hostname (${host}) or DELETE to go on: `)).trim();
    if (answer !== host && answer !== 'DELETE') throw new CliExit(EXIT.failed, 'not confirmed; nothing was removed');
  } finally {
    rl.close();
  }
}

export async function uninstallCommand(paths: SvcPaths, options: UninstallCommandOptions): Promise<void> {
  const home = options.dev ? resolvePaths(hostFacts({ ...process.env, SVC_HOME: resolve('.svc-home') })) : paths;
  const purge = options.purge === true || options.cleanSlate === true;
  if (purge && !options.force && process.env.SVC_FORCE !== '1') await confirmPurge(home);
  const outcome = await loadConfig(home).catch(() => null);
  const store = configuredStore(outcome?.ok ? outcome.config : null);
  const steps = await uninstall(home, { purge, keepData: options.keepData === true, store });
  const failed = steps.filter((s) => s.status === 'failed');
  if (options.json) printJson({ home: { config: home.configRoot, state: home.stateRoot }, purge, steps });
  else for (const s of steps) print(`${s.status.padEnd(7)} ${s.step}: ${s.detail}`);
  if (failed.length > 0) throw new CliExit(EXIT.failed, `${failed.length} step(s) failed: ${failed.map((s) => s.step).join(', ')}`);
}
