// What the registry's writers need of the running gateway (server/context.ts passes itself):
// the running config and its swap, the one writer queue, the event bus and the activity log.
// A scan, a pull and the model commands all write through it.
import type { ActivityInput } from '../activity/store.js';
import type { ResolvedConfig } from '../config/load.js';
import type { EventBus } from '../events/bus.js';
import type { SerialQueue } from '../lib/serial-queue.js';

export interface RegistryHost {
  readonly config: ResolvedConfig;
  readonly configWrites: SerialQueue;
  readonly events: Pick<EventBus, 'publish'>;
  replaceConfig(config: ResolvedConfig): void;
  record(entry: ActivityInput): void;
}
