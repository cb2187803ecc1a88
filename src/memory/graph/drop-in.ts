// On the hindsight engine the daemon builds the graph itself: [memory.graph] reaches it as a
// systemd drop-in (docs/memory.md "Graph"; the original's exact text with its name and the `svc/`
// model prefix of this spec), written atomically, then `systemctl daemon-reload` and a
// restart of hindsight-api.service. Each step's outcome is reported, never thrown: a host
// without systemd (or a gateway that may not write /etc) gets the error in `propagation`.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/atomic.js';
import type { MemoryGraphPropagation } from '../../protocol/memory-graph.js';

export const HINDSIGHT_UNIT = 'hindsight-api.service';
export const DEFAULT_DROP_IN_DIR = `/etc/systemd/system/${HINDSIGHT_UNIT}.d`;
export const DROP_IN_FILE = 'extraction-model.conf';
const SYSTEMCTL_TIMEOUT_MS = 60_000;

/** The drop-in's exact text. */
export function dropInText(slot: string, timeoutS: number): string {
  return '# Managed by svc (ADR-0023 — memory.graph.extraction_slot / llm_timeout_s).\n'
    + '# Overrides HINDSIGHT_API_LLM_MODEL and HINDSIGHT_API_LLM_TIMEOUT in the base\n'
    + '# hindsight-api.service unit. Do not edit by hand; set via `svc memory graph\n'
    + '# enable --slot <name>` or the dashboard, which rewrites this file and\n'
    + '# restarts the service.\n'
    + '[Service]\n'
    + `Environment=HINDSIGHT_API_LLM_MODEL=svc/${slot}\n`
    + `Environment=HINDSIGHT_API_LLM_TIMEOUT=${timeoutS}\n`;
}

export interface PropagateOptions {
  /** Where the drop-in goes (SVC_HINDSIGHT_DROPIN_DIR, else DEFAULT_DROP_IN_DIR). */
  dir: string;
  /** Whether systemd runs this host; a check of /run/systemd/system by default. */
  systemdRunning?: () => boolean;
}

function systemctl(args: readonly string[]): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile('systemctl', [...args], { timeout: SYSTEMCTL_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ ok: !error, output: `${stdout}${stderr}`.trim() || (error?.message ?? '') });
    });
  });
}

/** Writes the drop-in for `slot` and `timeoutS`, reloads systemd and restarts the daemon. */
export async function propagateToHindsight(slot: string, timeoutS: number, options: PropagateOptions): Promise<MemoryGraphPropagation> {
  const path = join(options.dir, DROP_IN_FILE);
  const report: MemoryGraphPropagation = { applicable: true, slot, model: `svc/${slot}`, timeout_s: timeoutS, drop_in: path, written: false, daemon_reloaded: false, restarted: false, error: null };
  try {
    await mkdir(options.dir, { recursive: true });
    await writeFileAtomic(path, dropInText(slot, timeoutS));
    report.written = true;
  } catch (error) {
    report.error = `could not write ${path}: ${(error as Error).message}`;
    return report;
  }
  if (!(options.systemdRunning ?? (() => existsSync('/run/systemd/system')))()) {
    report.error = `systemd is not running on this host: run \`systemctl daemon-reload && systemctl restart ${HINDSIGHT_UNIT}\` where the daemon runs`;
    return report;
  }
  const reload = await systemctl(['daemon-reload']);
  report.daemon_reloaded = reload.ok;
  if (!reload.ok) {
    report.error = `systemctl daemon-reload failed: ${reload.output.slice(0, 300)}`;
    return report;
  }
  const restart = await systemctl(['restart', HINDSIGHT_UNIT]);
  report.restarted = restart.ok;
  if (!restart.ok) report.error = `systemctl restart ${HINDSIGHT_UNIT} failed: ${restart.output.slice(0, 300)}`;
  return report;
}

/** What a PUT reports on an engine other than hindsight: svc builds the graph itself. */
export function notApplicable(slot: string, timeoutS: number, engine: string): MemoryGraphPropagation {
  return { applicable: false, slot, model: `svc/${slot}`, timeout_s: timeoutS, drop_in: null, written: false, daemon_reloaded: false, restarted: false, error: null, note: `not applicable on the ${engine} engine: svc extracts the graph itself` };
}
