// What `svc run` does with a model the registry does not have. For now it stops with a
// clear message; `svc model pull` will make this a pull (the signature stays).
import type { ApiClient } from '../client.js';
import { CliExit, EXIT } from '../output.js';

/**
 * The registry id of `ref` once it is in the registry. Called only after GET
 * /api/models/<ref> answered model.not_found. `out` is for progress lines (a pull's).
 */
export async function ensureModel(_client: ApiClient, ref: string, _out?: (line: string) => void): Promise<string> {
  throw new CliExit(EXIT.failed, `model ${ref} is not in the registry; pull it first (svc model pull ${ref})`);
}
