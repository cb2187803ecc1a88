// Everything a handler may use, in one object: the running config (swapped whole on
// reload, never mutated), the activity log, the event bus, and the one writer queue for
// configuration files.
import { EventEmitter } from 'node:events';
import type { ActivityInput, ActivityLog, ActivityOptions } from '../activity/store.js';
import type { ResolvedConfig } from '../config/load.js';
import type { SvcPaths } from '../config/paths.js';
import { SerialQueue } from '../config/serial-queue.js';
import { VERSION } from '../protocol/version.js';

export interface ListenAddress {
  host: string;
  port: number;
}

/** Events the dashboard (and tests) can subscribe to; every state change emits one. */
export interface ServerEvents {
  activity: [entry: ActivityInput];
  'config.replaced': [config: ResolvedConfig];
}

export function activityOptions(config: ResolvedConfig): ActivityOptions {
  const { enabled, retention_days, max_rows } = config.svc.activity;
  return { enabled, retentionDays: retention_days, maxRows: max_rows };
}

export class ServerContext {
  readonly version = VERSION;
  readonly startedAt = new Date();
  readonly events = new EventEmitter<ServerEvents>();
  /** One writer for configuration files. */
  readonly configWrites = new SerialQueue();
  listening: ListenAddress = { host: '127.0.0.1', port: 0 };
  private current: ResolvedConfig;

  constructor(
    readonly paths: SvcPaths,
    config: ResolvedConfig,
    readonly activity: ActivityLog | undefined,
  ) {
    this.current = config;
  }

  get config(): ResolvedConfig {
    return this.current;
  }

  replaceConfig(next: ResolvedConfig): void {
    this.current = next;
    this.activity?.setOptions(activityOptions(next));
    this.events.emit('config.replaced', next);
  }

  /** Record a config change or state change: one activity row and one event. */
  record(entry: ActivityInput): void {
    this.activity?.record(entry);
    this.events.emit('activity', entry);
  }

  uptimeSeconds(): number {
    return Math.round((Date.now() - this.startedAt.getTime()) / 1000);
  }
}
