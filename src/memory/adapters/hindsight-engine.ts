// The hindsight engine with its degraded mode (docs/memory.md, "Degraded mode"):
// a daemon down at boot (or found down at a use) makes the engine degraded. Writes are then
// acknowledged into the outbox (durable, in svc's own store) and readable from it; the daemon
// is probed again every [memory].hindsight_reprobe_interval_s (<= 0: only on
// POST /api/memory/promote); when it answers, the outbox is replayed in order and the engine
// promoted, once. A marker file says the outbox has rows, so a healthy boot opens svc's own
// database only when there is something to replay. Writes and the replay go through one
// queue: a write never passes one acknowledged before it.
import { randomUUID } from 'node:crypto';
import { access, mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../../config/atomic.js';
import { MemoryError } from '../../protocol/errors.js';
import type { MemoryBankStats, MemoryBankView, MemoryItem } from '../../protocol/memory.js';
import type { MemoryIdentity } from '../identity.js';
import type { HindsightClient } from './hindsight.js';
import { retainItem } from './hindsight-items.js';
import { matchWords, type HindsightOutbox } from './outbox.js';
import { daemonBank, type EngineAddItem, type EngineDeps, type EnginePage, type EngineRecall, type EngineReport, type EngineSearch, type MemoryEngineAdapter, type PassthroughAnswer, type PromoteAnswer } from './types.js';

const REPLAY_BATCH = 100;
const unreachable = (error: unknown) => error instanceof MemoryError && error.code === 'memory.engine_unreachable';

export class HindsightEngine implements MemoryEngineAdapter {
  readonly engine = 'hindsight';
  private state: 'healthy' | 'degraded' = 'healthy';
  private reason = '';
  private readonly started: Promise<void>;
  private queue: Promise<unknown> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private closed = false;
  /** The marker file exists (read once at boot, then kept here: no disk check on a request). */
  private outboxHasRows = false;

  constructor(private readonly client: HindsightClient, private readonly deps: EngineDeps & { outbox: () => Promise<HindsightOutbox>; markerPath: string }) {
    this.started = this.boot();
  }

  /** The boot probe; a healthy daemon with an outbox left from a degraded run gets it replayed first. */
  private async boot(): Promise<void> {
    this.outboxHasRows = await access(this.deps.markerPath).then(() => true, () => false);
    const probe = await this.client.probe();
    if (!probe.ok) return this.degrade(probe.reason);
    if (this.outboxHasRows) await this.serial(() => this.replay()).catch((error: unknown) => this.degrade((error as Error).message));
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async degrade(reason: string): Promise<void> {
    if (this.state === 'degraded') return;
    this.state = 'degraded';
    this.reason = reason;
    const pending = this.outboxHasRows ? await this.deps.outbox().then((o) => o.count(), () => 0) : 0;
    this.deps.log(`svc: memory engine hindsight degraded (writes kept in the outbox): ${reason}`);
    this.deps.publish({ type: 'memory.engine.degraded', source: 'memory', severity: 'warn', message: `hindsight daemon unreachable, memory degraded: ${reason}`, data: { engine: 'hindsight', reason, pending } });
    this.deps.record({ action: 'memory.engine.degraded', kind: 'event', target: 'hindsight', outcome: 'error', message: reason, details: { pending } });
    const every = this.deps.reprobeIntervalS();
    if (every > 0 && !this.closed) {
      this.timer = setInterval(() => void this.promote().catch(() => undefined), every * 1000);
      this.timer.unref();
    }
  }

  /** Sends the outbox in order; a row the daemon refuses (4xx) is reported and dropped, an unreachable daemon stops it. */
  private async replay(): Promise<number> {
    const outbox = await this.deps.outbox();
    let replayed = 0;
    for (let rows = await outbox.oldest(REPLAY_BATCH); rows.length > 0; rows = await outbox.oldest(REPLAY_BATCH)) {
      for (const row of rows) {
        try {
          await this.client.retain(row.bank, row.item);
        } catch (error) {
          if (unreachable(error) || (error instanceof MemoryError && error.code === 'memory.engine_upstream')) throw error;
          this.deps.record({ action: 'memory.outbox_rejected', kind: 'event', target: row.bank, outcome: 'error', message: (error as Error).message, details: { id: row.item.document_id } });
        }
        await outbox.remove(row.seq);
        replayed++;
      }
    }
    await rm(this.deps.markerPath, { force: true });
    this.outboxHasRows = false;
    return replayed;
  }

  async promote(): Promise<PromoteAnswer> {
    await this.started;
    if (this.closed) return { promoted: false, changed: false, state: this.state, detail: 'the gateway is stopping' };
    if (this.state === 'healthy') return { promoted: true, changed: false, state: 'healthy' };
    const probe = await this.client.probe();
    if (!probe.ok) return { promoted: false, changed: false, state: 'degraded', detail: probe.reason };
    return this.serial(async () => {
      if (this.state === 'healthy') return { promoted: true, changed: false, state: 'healthy' };
      let replayed: number;
      try {
        replayed = await this.replay();
      } catch (error) {
        return { promoted: false, changed: false, state: 'degraded', detail: `replay stopped: ${(error as Error).message}` };
      }
      this.state = 'healthy';
      clearInterval(this.timer);
      this.deps.publish({ type: 'memory.engine.promoted', source: 'memory', message: `hindsight daemon back: ${replayed} waiting writes replayed`, data: { engine: 'hindsight', replayed } });
      this.deps.record({ action: 'memory.engine.promoted', kind: 'event', target: 'hindsight', details: { replayed } });
      return { promoted: true, changed: true, state: 'healthy', detail: `${replayed} writes replayed` };
    });
  }

  /** `healthy` runs on the daemon; an unreachable daemon degrades the engine and `degraded` answers. */
  private async either<T>(healthy: () => Promise<T>, degraded: () => Promise<T>): Promise<T> {
    await this.started;
    if (this.state === 'healthy') {
      try {
        return await healthy();
      } catch (error) {
        if (!unreachable(error)) throw error;
        await this.degrade((error as Error).message);
      }
    }
    return degraded();
  }

  async add(bank: string, item: EngineAddItem): Promise<{ id: string; timestamp: string; operation_id?: string }> {
    const id = item.document_id ?? randomUUID();
    const timestamp = new Date().toISOString();
    const retain = retainItem(item.text, id, timestamp, item);
    const keepInOutbox = () => this.serial(async () => {
      if (this.state === 'healthy') return { id, timestamp, ...(await this.client.retain(bank, retain)) };
      await mkdir(dirname(this.deps.markerPath), { recursive: true });
      if (!this.outboxHasRows) await writeFileAtomic(this.deps.markerPath, 'hindsight outbox has rows\n');
      this.outboxHasRows = true;
      await (await this.deps.outbox()).push(bank, retain);
      return { id, timestamp };
    });
    return this.either(async () => ({ id, timestamp, ...(await this.client.retain(bank, retain)) }), keepInOutbox);
  }

  private async waiting(bank: string, who: MemoryIdentity, filter: { dataset?: string; before?: string; after?: string }): Promise<MemoryItem[]> {
    return this.outboxHasRows ? (await this.deps.outbox()).items(bank, who, filter) : [];
  }

  search(banks: readonly string[], q: EngineSearch, who: MemoryIdentity): Promise<MemoryItem[][]> {
    return this.either(() => this.client.search(banks, q, who), () => Promise.all(banks.map(async (bank) => matchWords(await this.waiting(bank, who, q), q.query).slice(0, q.limit))));
  }

  recall(banks: readonly string[], q: EngineRecall, who: MemoryIdentity): Promise<MemoryItem[][]> {
    return this.either(() => this.client.recall(banks, q, who), () => Promise.all(banks.map(async (bank) => matchWords(await this.waiting(bank, who, q), q.query))));
  }

  list(bank: string, q: { dataset?: string; offset: number; limit: number }, who: MemoryIdentity): Promise<EnginePage> {
    return this.either(() => this.client.list(bank, q, who), async () => {
      const all = await this.waiting(bank, who, q);
      const items = all.slice(q.offset, q.offset + q.limit);
      return { items, next: q.offset + items.length < all.length ? q.offset + items.length : null };
    });
  }

  delete(bank: string, ids: readonly string[], who: MemoryIdentity): Promise<number> {
    return this.either(() => this.client.delete(bank, ids, who), async () => (this.outboxHasRows ? (await this.deps.outbox()).delete(bank, ids, who) : 0));
  }

  private refuseDegraded(): never {
    throw new MemoryError('memory.engine_unreachable', `the hindsight daemon is down (degraded: ${this.reason}); bank administration waits for it (POST /api/memory/promote)`, { engine: 'hindsight', state: 'degraded' });
  }

  banks(): Promise<MemoryBankView[]> {
    return this.either(() => this.client.banks(), () => this.refuseDegraded());
  }

  async putBank(bank: string, body: Record<string, unknown>, method: 'PUT' | 'PATCH'): Promise<MemoryBankView> {
    return this.either(async () => {
      await this.client.putBank(bank, body, method);
      return daemonBank(bank, (await this.client.stats(bank)).items);
    }, () => this.refuseDegraded());
  }

  deleteBank(bank: string): Promise<number> {
    return this.either(() => this.client.deleteBank(bank), () => this.refuseDegraded());
  }

  stats(bank: string): Promise<MemoryBankStats> {
    return this.either(() => this.client.stats(bank), () => this.refuseDegraded());
  }

  passthrough(method: string, bank: string, subpath: string, query: string, body: unknown): Promise<PassthroughAnswer> {
    return this.either(() => this.client.passthrough(method, bank, subpath, query, body), () => this.refuseDegraded());
  }

  async report(): Promise<EngineReport> {
    await this.started;
    if (this.state === 'healthy') return this.client.report();
    const pending = this.outboxHasRows ? await this.deps.outbox().then((o) => o.count(), () => 0) : 0;
    return { reachable: false, version: null, features: { search: true, recall: true, rerank: true, graph: false }, banks_total: null, state: 'degraded', pending, error: this.reason };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.queue;
  }
}
