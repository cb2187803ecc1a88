// svc doctor: the preflight battery (src/doctor/), one line per check; exit 1 when any
// check fails (warnings do not). It reads the files itself: no running gateway needed. The
// battery (doctor/checks.ts) probes the host, so the bin hands it in (CliHost, program.ts).
// svc doctor toolbox-pull asks the registries for the pinned images' digests; svc doctor
// perms audits owners and modes.
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../lib/code-dir.js';
import { localGateway } from '../../config/api-url.js';
import type { SvcPaths } from '../../config/paths.js';
import type { CheckResult, runDoctor } from '../../doctor/checks.js';
import { auditPerms, fixPerms } from '../../doctor/perms.js';
import { checkImage, readManifest } from '../../doctor/toolbox.js';
import { CliExit, EXIT, print, printJson } from '../output.js';

const MARK = { ok: '✓', warn: '!', fail: '✗' } as const;
const COLOUR = { ok: '\x1b[32m', warn: '\x1b[33m', fail: '\x1b[31m' } as const;

/** `--ports "8080 3001"` (spaces or commas). */
export function parsePorts(text: string | undefined): number[] {
  if (!text) return [];
  const words = text.split(/[\s,]+/).filter(Boolean);
  const ports = words.map(Number);
  const bad = words.filter((_, i) => !Number.isInteger(ports[i]) || ports[i]! < 1 || ports[i]! > 65535);
  if (bad.length) throw new CliExit(EXIT.usage, `--ports: expected port numbers (1-65535); got ${bad.join(', ')}`);
  return ports;
}

export function formatCheck(check: CheckResult, plain: boolean): string[] {
  const head = plain ? `${check.status.padEnd(4)} ${check.id}: ${check.message}` : `${COLOUR[check.status]}${MARK[check.status]}\x1b[0m ${check.id}: ${check.message}`;
  return check.hint && check.status !== 'ok' ? [head, `     ${plain ? 'fix:' : '→'} ${check.hint}`] : [head];
}

export async function doctorCommand(paths: SvcPaths, battery: typeof runDoctor, options: { plain?: boolean; ports?: string; json?: boolean }): Promise<void> {
  // The port the gateway of this home serves on now, else the one it would take (as `svc serve` picks it).
  const checks = await battery({ paths, apiPort: localGateway(paths).port, extraPorts: parsePorts(options.ports), env: process.env });
  const failed = checks.filter((c) => c.status === 'fail').length;
  const warned = checks.filter((c) => c.status === 'warn').length;
  if (options.json) printJson({ ok: failed === 0, failed, warnings: warned, checks });
  else {
    const plain = options.plain === true || !process.stdout.isTTY || process.env.NO_COLOR !== undefined;
    for (const check of checks) for (const line of formatCheck(check, plain)) print(line);
    print(`${checks.length} checks: ${checks.length - failed - warned} ok, ${warned} warning(s), ${failed} failed`);
  }
  if (failed > 0) throw new CliExit(EXIT.failed, `${failed} check(s) failed`);
}

/** The manifest shipped with svc: beside dist/ in a checkout or an installed package. */
export function defaultManifestPath(): string {
  return join(PACKAGE_ROOT, 'manifest.json');
}

export async function toolboxPullCommand(options: { json?: boolean; manifest?: string }): Promise<void> {
  const path = options.manifest ?? defaultManifestPath();
  let images;
  try {
    images = await readManifest(path);
  } catch (error) {
    throw new CliExit(EXIT.usage, `cannot read ${path}: ${(error as Error).message}`);
  }
  if (images.length === 0) throw new CliExit(EXIT.usage, `${path} lists no toolbox_images`);
  const rows = await Promise.all(images.map((image) => checkImage(image)));
  const unreachable = rows.filter((r) => !r.ok);
  if (options.json) printJson({ manifest: path, images: rows });
  else {
    for (const r of rows) {
      const pin = r.matches_pin === null ? (r.pinned_digest ? '' : ' (not pinned)') : r.matches_pin ? ' (matches the pin)' : ` (differs from the pin ${r.pinned_digest})`;
      print(r.ok ? `ok   ${r.name}: ${r.image}:${r.tag} → ${r.digest}${pin}` : `FAIL ${r.name}: ${r.image}:${r.tag}: ${r.error}`);
    }
  }
  if (unreachable.length > 0) throw new CliExit(EXIT.failed, `${unreachable.length} of ${rows.length} image(s) could not be reached`);
}

export async function permsCommand(paths: SvcPaths, options: { fix?: boolean; json?: boolean }): Promise<void> {
  const { owner, drift } = await auditPerms(paths);
  if (!owner) throw new CliExit(EXIT.failed, `${paths.configRoot} does not exist: nothing to audit (svc serve or svc setup creates it)`);
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (options.fix && drift.length > 0 && !asRoot) throw new CliExit(EXIT.failed, `--fix changes owners and modes and needs root: sudo svc doctor perms --fix (${drift.length} problem(s) found)`);
  const failures = options.fix ? await fixPerms(drift) : [];
  const left = options.fix ? (await auditPerms(paths)).drift : drift;
  if (options.json) printJson({ owner, drift, fixed: options.fix ? drift.length - left.length : 0, remaining: left, failures });
  else {
    for (const d of drift) print(`${options.fix && !left.some((l) => l.path === d.path) ? 'fixed' : 'drift'} ${d.path}: ${d.problem}`);
    for (const f of failures) print(`could not fix ${f}`);
    print(left.length === 0 ? `owner ${owner.uid}:${owner.gid}; config and state as they should be` : `${left.length} problem(s)${options.fix ? ' left' : ''}; sudo svc doctor perms --fix repairs them`);
  }
  if (left.length > 0) throw new CliExit(EXIT.failed, `${left.length} ownership or mode problem(s)`);
}

/** svc doctor [toolbox-pull|perms]. */
export async function doctorDispatch(paths: SvcPaths, battery: typeof runDoctor, check: string | undefined, options: { plain?: boolean; ports?: string; json?: boolean; manifest?: string; fix?: boolean }): Promise<void> {
  if (check === undefined) return doctorCommand(paths, battery, options);
  if (check === 'toolbox-pull') return toolboxPullCommand(options);
  if (check === 'perms') return permsCommand(paths, options);
  throw new CliExit(EXIT.usage, `unknown check ${JSON.stringify(check)}: svc doctor, svc doctor toolbox-pull or svc doctor perms`);
}
