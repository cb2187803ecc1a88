// A slot's use: how many requests it has in flight and when it was last used. The eviction
// policy reads both (DESIGN.md, "Slot lifecycle"): a slot with requests in flight is never
// evicted, and idle time counts from the last use. The count goes up when a request is
// handed over and down in its `finally`, once however often the release is called.
export class SlotUse {
  private requests = 0;
  private last = 0;

  get inFlight(): number {
    return this.requests;
  }

  /** Epoch ms of the last use: a request's start or end, a load asked for, the engine turning ready. */
  get lastUsedAt(): number {
    return this.last;
  }

  /** Used now: idle time counts from here. */
  mark(): void {
    this.last = Date.now();
  }

  /** Count a request in flight; call the returned function when it ends. */
  acquire(): () => void {
    this.requests++;
    this.mark();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.requests--;
      this.mark();
    };
  }
}
