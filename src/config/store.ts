// What a service that changes configuration files needs from whoever holds the running
// configuration: the current one (swapped whole, never mutated), a way to swap in the one
// just loaded from disk, and the one writer queue for configuration files.
import type { ResolvedConfig } from './load.js';
import type { SvcPaths } from './paths.js';
import type { SerialQueue } from '../lib/serial-queue.js';

export interface ConfigHolder {
  readonly paths: SvcPaths;
  readonly config: ResolvedConfig;
  replaceConfig(next: ResolvedConfig): void;
  /** One writer for configuration files: every read-modify-write runs inside it. */
  readonly configWrites: SerialQueue;
}
