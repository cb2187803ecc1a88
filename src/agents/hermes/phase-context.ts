// What every phase gets: the gateway's loans, the flags, the previous provision.json, a log,
// and the one way a phase writes a file (writeSet): hashed, skipped when unchanged, recorded
// and never performed in a dry run.
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { writeFileAtomic } from '../../config/atomic.js';
import { runProgram, runtimeEnv, runtimeLocation, type RuntimeLocation, type RuntimeRun } from './runtime.js';
import type { HermesPhase, PhaseOutcome, PhaseRecord, ProvisionDeps, ProvisionOptions, ProvisionRecord } from './types.js';

export interface PlannedFile {
  path: string;
  content: string;
  /** 0600 for secrets; forced even when the file exists with another mode. */
  mode?: number;
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export class PhaseContext {
  readonly lines: string[] = [];
  /** Results of the phases already run in this pass. */
  readonly done: Partial<Record<HermesPhase, PhaseRecord>> = {};

  constructor(
    readonly phase: { name: HermesPhase },
    readonly deps: ProvisionDeps,
    readonly options: ProvisionOptions,
    readonly previous: ProvisionRecord | null,
  ) {}

  get home(): string {
    return this.deps.paths.dataDir;
  }

  log(line: string): void {
    this.lines.push(`${new Date().toISOString()} [${this.phase.name}] ${line}`);
  }

  /** This phase's record in the previous provision.json. */
  previousOf(phase: HermesPhase = this.phase.name): PhaseRecord | undefined {
    return this.previous?.phases[phase];
  }

  runtime(): RuntimeLocation {
    return runtimeLocation(this.deps.paths.installDir, this.deps.env);
  }

  async run(args: readonly string[], extraEnv: Record<string, string> = {}): Promise<RuntimeRun> {
    const { path } = this.runtime();
    this.log(`run: hermes ${args.join(' ')}`);
    const result = await runProgram(path, args, runtimeEnv(this.deps.env, this.home, extraEnv));
    this.log(`exit ${result.code}${result.stderr.trim() ? `; stderr: ${result.stderr.trim().slice(-400)}` : ''}`);
    return result;
  }

  /**
   * Writes the files of this phase, or not: unchanged (same hash as last time, every file
   * in place with that content, no --repair) skips; a dry run reports what it would write.
   */
  async writeSet(files: readonly PlannedFile[], details: Record<string, unknown> = {}): Promise<PhaseOutcome> {
    const hash = sha256(files.map((f) => `${f.path}\0${f.mode ?? ''}\0${f.content}`).join('\0'));
    const before = this.previousOf();
    const inPlace = await Promise.all(files.map(async (f) => {
      const same = await readFile(f.path, 'utf8').then((text) => text === f.content, () => false);
      return same && (f.mode === undefined || ((await stat(f.path)).mode & 0o777) === f.mode);
    }));
    if (!this.options.repair && before?.hash === hash && (before.status === 'ok' || before.status === 'skip') && inPlace.every(Boolean)) {
      this.log('unchanged: nothing written');
      return { status: 'skip', reason: 'unchanged', hash, details };
    }
    const paths = files.map((f) => f.path);
    if (this.options.dryRun) {
      this.log(`dry run: would write ${paths.join(', ')}`);
      return { status: 'ok', hash, details: { ...details, would_write: paths } };
    }
    for (const file of files) {
      await writeFileAtomic(file.path, file.content, file.mode === undefined ? {} : { mode: file.mode, forceMode: true });
      this.log(`wrote ${file.path}`);
    }
    return { status: 'ok', hash, details: { ...details, written: paths } };
  }
}
