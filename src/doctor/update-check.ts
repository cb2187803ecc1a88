// The doctor's look at the update layout (docs/updates.md): where `current` points, what a
// rollback would go to, and how the last update job ended. A `current` whose tree is gone is a
// failure (a service starting it would not start); the rest are warnings.
import { existsSync } from 'node:fs';
import type { SvcPaths } from '../config/paths.js';
import { listJobs } from '../update/jobs.js';
import { installPrefix, readCurrent, readPrevious, runningTree, treeBin, treeVersion } from '../update/layout.js';
import type { CheckResult } from './types.js';

export async function updateCheck(paths: SvcPaths, env: NodeJS.ProcessEnv): Promise<CheckResult> {
  const prefix = installPrefix(env);
  const current = await readCurrent(prefix);
  const previous = await readPrevious(paths);
  const [last] = await listJobs(paths);
  if (current !== null && !existsSync(treeBin(current))) {
    return { id: 'updates', status: 'fail', message: `${prefix}/current points at ${current}, which holds no svc`, hint: previous ? `svc update --rollback, or point it back: ln -sfn ${previous.path} ${prefix}/current` : `svc update --target <version>, or remove ${prefix}/current` };
  }
  if (previous && !existsSync(treeBin(previous.path))) {
    return { id: 'updates', status: 'warn', message: `svc.previous records ${previous.version} at ${previous.path}, which is gone: svc update --rollback has nothing to go to`, hint: 'the next svc update records a new one' };
  }
  if (last && (last.state === 'failed' || last.state === 'rolled_back')) {
    return { id: 'updates', status: 'warn', message: `the last ${last.kind} (${last.from.version} -> ${last.to.version}, job ${last.id}) ended ${last.state}: ${last.error?.message.split('\n')[0] ?? last.message}`, hint: `its log: ${paths.stateRoot}/update-jobs/${last.id}.log (docs/troubleshooting.md)` };
  }
  const running = current ? `${prefix}/current -> ${current} (${(await treeVersion(current)) ?? '?'})` : `no update installed yet; svc runs from ${runningTree()}`;
  return { id: 'updates', status: 'ok', message: `${running}${previous ? `; svc update --rollback goes to ${previous.version}` : ''}` };
}
