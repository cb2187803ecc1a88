// svc setup: first-run provisioning. The answers come from the TUI (setup-tui.ts), from
// --auto's defaults, or from --answers; nothing is written until they are all in. Then the
// gateway applies them (POST /api/install/apply): the running one, or, when none answers,
// one started for the duration of the setup on this home. Pulls it starts are followed to
// the end and the apply repeated, so their slots are created too.
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { loadConfig } from '../../config/load.js';
import type { SvcPaths } from '../../config/paths.js';
import type { InstallApplyPayload } from '../../protocol/install.js';
import { TERMINAL_PULL_STATES } from '../../protocol/pulls.js';
import type * as SetupHost from '../../setup/host.js';
import { installApiService } from '../../setup/service-install.js';
import { autoAnswers, SetupAnswersSchema, summaryLines, type SetupAnswers } from '../../setup/answers.js';
import { ApiClient, ApiUnreachableError } from '../client.js';
import { cliCredentials } from '../credentials.js';
import { CliExit, EXIT, print, printJson } from '../output.js';

export interface SetupOptions {
  auto?: boolean;
  storageDir?: string;
  pull?: boolean;
  extensions?: boolean;
  slots?: boolean;
  answers?: string;
  emitAnswers?: string;
  dryRun?: boolean;
  json?: boolean;
}

const POLL_MS = 500;

/** setupHost: the hardware probe and hardware.json (setup/host.ts), which the bin hands in: host code the CLI does not import. */
export async function setupCommand(paths: SvcPaths, client: () => ApiClient, setupHost: () => Promise<typeof SetupHost>, options: SetupOptions): Promise<void> {
  const { probeHost, saveProbe } = await setupHost();
  const probe = await probeHost();
  const outcome = await loadConfig(paths);
  const existing = new Set(outcome.ok ? outcome.config.slots.map((s) => s.name) : []);
  const flags = { storageDir: resolve(options.storageDir ?? paths.defaultModelsDir), pull: options.pull !== false, extensions: options.extensions !== false, slots: options.slots !== false };
  let answers: SetupAnswers;
  if (options.answers) answers = await readAnswers(options.answers);
  else if (options.auto) answers = autoAnswers(flags, probe);
  else {
    if (!process.stdin.isTTY || !process.stdout.isTTY) throw new CliExit(EXIT.usage, 'interactive setup needs a terminal; pass --auto (defaults) or --answers FILE');
    const { askAnswers } = await import('./setup-tui.js');
    const asked = await askAnswers({ flags, probe, config: outcome.ok ? outcome.config : undefined, existing });
    if (!asked) throw new CliExit(EXIT.failed, 'setup cancelled; nothing was written');
    answers = asked;
  }
  if (options.emitAnswers) await writeFile(options.emitAnswers, `${JSON.stringify(answers, null, 2)}\n`);
  if (!options.json) for (const line of summaryLines(answers, existing)) print(`setup: ${line}`);
  if (options.dryRun) return options.json ? printJson({ answers, dry_run: true }) : print('setup: --dry-run: nothing written');

  if (probe) await saveProbe(paths, probe);
  const { api, stop, started } = await gatewayFor(paths, client, options.json === true);
  let result: InstallApplyPayload;
  try {
    result = await applyUntilDone(api, answers, options.json === true);
  } finally {
    await stop();
  }
  if (options.json) printJson({ answers, result });
  else {
    for (const slot of result.slots) print(`setup: slot ${slot.name}: ${slot.status}${slot.port ? ` on port ${slot.port}` : ''}${slot.message ? ` (${slot.message})` : ''}`);
    if (result.models_added.length) print(`setup: models added: ${result.models_added.join(', ')}`);
    print(result.complete ? 'setup: done; `svc doctor` checks the result' : 'setup: not complete; run it again once the problems above are fixed');
  }
  if (result.complete) {
    // A gateway the user runs already serves this home: a unit would be a second one (exit 7).
    const service = started ? await installApiService(paths, { node: process.execPath }).catch((error: Error) => ({ status: 'failed', detail: error.message })) : { status: 'skipped', detail: 'a gateway already serves this home; stop it before installing svc.service (sudo svc setup)' };
    if (!options.json) print(`setup: service unit: ${service.status}: ${service.detail}`);
  }
  if (answers.auth && result.complete) await enableAuth();
  if (!result.complete) throw new CliExit(EXIT.failed, 'setup did not create every slot');
}

async function readAnswers(file: string): Promise<SetupAnswers> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new CliExit(EXIT.usage, `cannot read ${file} as JSON: ${(error as Error).message}`);
  }
  const parsed = SetupAnswersSchema.safeParse(raw);
  if (!parsed.success) throw new CliExit(EXIT.usage, `${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** The running gateway, or one started on this home until setup ends. */
async function gatewayFor(paths: SvcPaths, client: () => ApiClient, quiet: boolean): Promise<{ api: ApiClient; stop: () => Promise<void>; started: boolean }> {
  const running = client();
  try {
    await running.installState();
    if (!quiet) print(`setup: applying through the gateway at ${running.baseUrl}`);
    return { api: running, stop: async () => undefined, started: false };
  } catch (error) {
    if (!(error instanceof ApiUnreachableError)) throw error;
  }
  const child = spawn(process.execPath, [process.argv[1]!, 'serve', '--host', '127.0.0.1', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new CliExit(EXIT.failed, `the gateway setup started exited (${code}) before listening:\n${output.trim()}`)));
  });
  if (!quiet) print(`setup: no gateway answered; started one on this home for the setup (${url})`);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    api: new ApiClient(url, cliCredentials(url, paths, process.env.SVC_API_TOKEN?.trim() || undefined)),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
    started: true,
  };
}

/** Apply; while models are being pulled, follow them, then apply again (it is idempotent). */
async function applyUntilDone(api: ApiClient, answers: SetupAnswers, quiet: boolean): Promise<InstallApplyPayload> {
  const body = { storage_dir: answers.storage_dir, slots: answers.slots, pull: answers.pull };
  for (;;) {
    const result = await api.installApply(body);
    const pulling = result.slots.filter((s) => s.status === 'pulling');
    if (pulling.length === 0) return result;
    for (const slot of pulling) {
      let last = -1;
      for (;;) {
        const job = await api.pullStatus(slot.model);
        const pct = job.bytes_total > 0 ? Math.floor((job.bytes_done / job.bytes_total) * 10) * 10 : 0;
        if (!quiet && pct !== last) print(`setup: pulling ${slot.model}: ${pct} %`);
        last = pct;
        if ((TERMINAL_PULL_STATES as readonly string[]).includes(job.state)) {
          if (job.state !== 'done') return { ...result, slots: result.slots.map((s) => (s.name === slot.name ? { ...s, status: 'failed', message: job.error?.message ?? `the pull ended ${job.state}` } : s)), complete: false };
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    }
  }
}

/** `svc auth enable` in this terminal: it asks for the admin password. */
async function enableAuth(): Promise<void> {
  print('setup: turning auth mode on (svc auth enable)');
  const child = spawn(process.execPath, [process.argv[1]!, 'auth', 'enable'], { stdio: 'inherit' });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new CliExit(EXIT.failed, `svc auth enable exited ${code}; run it again when ready`);
}
