// svc config edit [file]: open a copy in $EDITOR ($VISUAL, then vi in a terminal; with
// neither nor a terminal it refuses, naming the file to edit instead), validate it, and only
// then put it in place atomically. An invalid edit never replaces the file: the user may
// edit again, or the edited copy is kept and its path printed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { writeFileAtomic } from '../../config/atomic.js';
import { EDITABLE_FILE_PATTERN, loadConfig, validateFileText } from '../../config/load.js';
import type { SvcPaths } from '../../config/paths.js';
import { errorsOf, formatProblem } from '../../config/problems.js';
import { CliExit, EXIT, print } from '../output.js';
import { recordCliChange } from './config.js';

/** $EDITOR, else $VISUAL, else vi where there is a terminal to run it in; null: no editor can be started. */
export function editorCommand(env: NodeJS.ProcessEnv = process.env, terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY)): string | null {
  return env.EDITOR?.trim() || env.VISUAL?.trim() || (terminal ? 'vi' : null);
}

export async function configEdit(paths: SvcPaths, file = 'svc.toml'): Promise<void> {
  if (!EDITABLE_FILE_PATTERN.test(file)) {
    throw new CliExit(EXIT.usage, `cannot edit "${file}": expected svc.toml, a catalogue such as upstreams.toml, or slots/<name>.toml`);
  }
  const target = join(paths.configRoot, file);
  const editor = editorCommand();
  // vi with no terminal (a script, a pipe, an agent's shell) would hang or garble: say what to do instead.
  if (editor === null) {
    throw new CliExit(EXIT.usage, `svc config edit needs an editor: no $EDITOR (or $VISUAL) is set and this is not a terminal, so none can be started. Set EDITOR to an editor command, or edit ${target} directly and check it with \`svc config validate\``);
  }
  let original = '';
  try {
    original = readFileSync(target, 'utf8');
  } catch (error) {
    // A new file starts empty; any other failure must not turn into an empty draft that
    // would then replace the file (a rename needs no read permission on it).
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw new CliExit(EXIT.failed, `cannot read ${target} (${code ?? String(error)}); ${file} is unchanged`);
  }
  const workDir = mkdtempSync(join(tmpdir(), 'svc-edit-'));
  const draft = join(workDir, basename(file));
  writeFileSync(draft, original, { mode: 0o600 });

  for (;;) {
    const run = spawnSync(`${editor} "${draft}"`, { shell: true, stdio: 'inherit' });
    if (run.status !== 0) throw new CliExit(EXIT.failed, `the editor (${editor}) exited with ${run.status ?? run.signal}; ${file} is unchanged`);
    const edited = readFileSync(draft, 'utf8');
    if (edited === original) {
      rmSync(workDir, { recursive: true, force: true });
      return print(`${file}: no changes`);
    }
    const errors = errorsOf(validateFileText(file, edited));
    if (errors.length === 0) {
      await writeFileAtomic(target, edited);
      rmSync(workDir, { recursive: true, force: true });
      await recordCliChange(paths, 'config.edit', file, { file });
      return reportSaved(paths, file);
    }
    for (const problem of errors) print(formatProblem(problem));
    if (!(await askToRetry())) {
      throw new CliExit(EXIT.configInvalid, `${file} is unchanged; your edit is kept in ${draft}`);
    }
  }
}

async function askToRetry(): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  const answer = await prompt.question('Edit again? [Y/n] ');
  prompt.close();
  return !/^n/i.test(answer.trim());
}

/** The file itself is valid; say whether the configuration as a whole still is. */
async function reportSaved(paths: SvcPaths, file: string): Promise<void> {
  print(`${file} saved`);
  const outcome = await loadConfig(paths);
  for (const problem of errorsOf(outcome.problems)) print(formatProblem(problem));
  if (!outcome.ok) print('the configuration as a whole is invalid: the server will not start or reload until it is fixed');
  else print('run `svc config reload` to apply it to a running server');
}
