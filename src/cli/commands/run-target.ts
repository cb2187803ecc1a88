// What `svc run <name>` chats with (docs/cli.md, "svc run"), the first that matches:
//   1. a slot of that name: an llm slot, loaded with its own model unless it runs already;
//   2. a registered model (its id or exact name): the slot serving it, else a new one (run-slot.ts);
//   3. an id the gateway serves (GET /v1/models/<id>: a slot's role, an svc/* name, a model id
//      a slot runs, an upstream's model, a replica group): chatted with as it is, the gateway
//      routes it (and starts a stopped slot) as for any client;
//   4. anything else: a model to pull (run-model.ts).
// So `svc run chat` chats with the slot chat; only a name nothing here knows is pulled.
import type { ModelEntry } from '../../protocol/v1-wire.js';
import { ApiResponseError, type ApiClient } from '../client.js';
import { CliExit, EXIT } from '../output.js';
import { ensureModel } from './run-model.js';
import { loadSlotSaying, prepareSlot } from './run-slot.js';

const notFound = (error: unknown) => error instanceof ApiResponseError && error.code === 'model.not_found';

/** The `model` to send the chat with: a slot's name, or an id the gateway serves. */
export async function chatTarget(client: ApiClient, ref: string): Promise<string> {
  const { slots } = await client.listSlots();
  const slot = slots.find((s) => s.name === ref);
  if (slot) {
    if (slot.type !== 'llm') throw new CliExit(EXIT.usage, `slot ${slot.name} has type ${slot.type}; svc run chats with llm slots (svc slot list shows the types)`);
    return (await loadSlotSaying(client, slot, 'slot')).name;
  }
  const model = await client.getModel(ref).catch((error: unknown) => {
    // A name shared by several models is also model.not_found, with candidates: not a pull.
    if (notFound(error) && (error as ApiResponseError).envelope.error.details.candidates === undefined) return undefined;
    throw error;
  });
  if (model) return (await prepareSlot(client, model)).name;
  const served = await servedModel(client, ref);
  if (served) {
    process.stderr.write(`model ${ref}: served by ${servedBy(served)}\n`);
    return ref;
  }
  const id = await ensureModel(client, ref, (line) => process.stderr.write(`${line}\n`));
  return (await prepareSlot(client, await client.getModel(id))).name;
}

/** GET /v1/models/<id>: the entry for any id a request could be routed with; undefined when nothing serves it. */
async function servedModel(client: ApiClient, id: string): Promise<ModelEntry | undefined> {
  // Ids may hold "/" (svc/primary, org/model): each segment encoded, the slashes kept.
  const path = `/v1/models/${id.split('/').map(encodeURIComponent).join('/')}`;
  return client.request<ModelEntry>('GET', path).catch((error: unknown) => {
    if (notFound(error)) return undefined;
    throw error;
  });
}

function servedBy(entry: ModelEntry): string {
  if ('_hal0' in entry) return `slot ${entry._hal0.resolves_to}`;
  return entry.owned_by === 'svc' ? 'this gateway' : entry.owned_by;
}
