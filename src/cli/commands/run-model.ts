// What `svc run` does with a model the registry does not have: pull it (a Hugging Face ref
// or a catalogue name), following the job as `svc model pull` does, then use its id.
import { parsePullRef, pullModelId } from '../../protocol/pull-ref.js';
import { ApiResponseError, type ApiClient } from '../client.js';
import { CliExit, EXIT } from '../output.js';
import { EXIT_PULL_CANCELLED, followPull, progressPrinter } from './model-pull.js';

/**
 * The registry id of `ref` once it is in the registry. Called only after GET
 * /api/models/<ref> answered model.not_found. `out` is for status lines.
 */
export async function ensureModel(client: ApiClient, ref: string, out: (line: string) => void = () => undefined): Promise<string> {
  const parsed = parsePullRef(ref);
  const missing = `model ${ref} is not in the registry nor in the catalogue; run a Hugging Face repo (svc run org/repo[:quant]) or see svc model search`;
  if ('error' in parsed) throw new CliExit(EXIT.failed, missing);
  const id = pullModelId(parsed);
  const known = await client.getModel(id).catch((error: unknown) => {
    if (error instanceof ApiResponseError && error.code === 'model.not_found') return undefined;
    throw error;
  });
  if (known) return known.id;
  out(`pulling ${ref} as ${id}`);
  const job = await followPull(client, id, ref, { ref, force: false }, progressPrinter());
  if (job.state === 'done') return id;
  if (job.state === 'cancelled') throw new CliExit(EXIT_PULL_CANCELLED, `pull of ${id} cancelled; \`svc run ${ref}\` again resumes it`);
  if (job.error?.code === 'model.pull_invalid_ref' && parsed.kind === 'name') throw new CliExit(EXIT.failed, missing);
  throw new CliExit(EXIT.failed, `${job.error?.code ?? 'model.pull_failed'}: ${job.error?.message ?? 'the pull failed'}`);
}
