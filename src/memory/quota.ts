// The bounds of svc's own memory store (docs/troubleshooting.md, "Bounded stores"): a bank
// holds at most [memory].max_items_per_bank memories, the store at most max_banks banks. A
// write past either is refused with 507 (memory.bank_full, memory.too_many_banks) and nothing
// is deleted to make room: memories are what someone asked to keep, and one silently gone is
// worse than a write that says why it failed. The hindsight engine's outbox (the writes kept
// while its daemon is down) holds at most max_items_per_bank per bank the same way.
//
// Counting a bank's rows on every add would cost a scan of its index per write, so the count is
// kept per bank: counted on the first add of this gateway, again every RECOUNT_EVERY adds, and
// before any refusal. Deletes elsewhere only lower the real count, so a kept count errs high,
// and the recount before refusing means nothing is refused on a stale one. Adds under way
// reserve their room at once, so concurrent adds cannot pass the cap together.
import { SvcError } from '../protocol/errors.js';

export interface MemoryLimits {
  maxItemsPerBank: number;
  maxBanks: number;
}

/** What the quota reads of a store: counts, cheap enough once in a while. */
export interface CountingStore {
  itemCount(bank: string): Promise<number>;
  /** How many banks there are, and whether `bank` is one of them. */
  bankCount(bank: string): Promise<{ banks: number; known: boolean }>;
}

const RECOUNT_EVERY = 256;

export function bankFull(bank: string, items: number, adding: number, max: number): SvcError {
  return new SvcError('memory.bank_full', `bank "${bank}" holds ${items} memories and may hold ${max} ([memory].max_items_per_bank): delete some (or raise the cap) to add ${adding === 1 ? 'this one' : `${adding} more`}`,
    { bank, items, adding, max_items_per_bank: max, field: 'memory.max_items_per_bank' });
}

export class MemoryQuota {
  /** Per bank: the items counted (plus those added since), and the room reserved by adds under way. */
  private readonly kept = new Map<string, { items: number; pending: number; sinceCount: number }>();

  constructor(private readonly limits: () => MemoryLimits) {}

  /**
   * Room for `adding` more items in `bank`, reserved now; refused with memory.bank_full. The
   * caller then says how it went: commit() what it added, release() what it did not.
   */
  async reserve(store: CountingStore, bank: string, adding: number): Promise<void> {
    const max = this.limits().maxItemsPerBank;
    let kept = this.kept.get(bank);
    if (!kept) this.kept.set(bank, (kept = { items: 0, pending: 0, sinceCount: RECOUNT_EVERY }));
    if (kept.sinceCount >= RECOUNT_EVERY || kept.items + kept.pending + adding > max) {
      kept.items = await store.itemCount(bank);
      kept.sinceCount = 0;
      if (kept.items + kept.pending + adding > max) throw bankFull(bank, kept.items + kept.pending, adding, max);
    }
    kept.pending += adding;
  }

  commit(bank: string, added: number): void {
    const kept = this.kept.get(bank);
    if (!kept) return;
    kept.pending = Math.max(0, kept.pending - added);
    kept.items += added;
    kept.sinceCount += added;
  }

  release(bank: string, unused: number): void {
    const kept = this.kept.get(bank);
    if (kept) kept.pending = Math.max(0, kept.pending - unused);
  }

  /** A bank that is not there yet may be made only while there are fewer than max_banks. */
  async mayCreate(store: CountingStore, bank: string): Promise<void> {
    const max = this.limits().maxBanks;
    const { banks, known } = await store.bankCount(bank);
    if (!known && banks >= max) {
      throw new SvcError('memory.too_many_banks', `the memory store holds ${banks} banks and may hold ${max} ([memory].max_banks): delete a bank (or raise the cap) to make "${bank}"`,
        { bank, banks, max_banks: max, field: 'memory.max_banks' });
    }
  }

  /** The bank was deleted or re-made: its count is read again at its next add. */
  forget(bank: string): void {
    this.kept.delete(bank);
  }
}
