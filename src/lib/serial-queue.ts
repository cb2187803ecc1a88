// Runs async operations one at a time, in arrival order. Node's awaits interleave like
// threads, so every "one writer" rule in svc (config files, a slot's state) goes through one
// of these instead of a check-then-act.
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.tail.then(operation, operation);
    // The queue continues whether or not this operation failed; the caller sees the failure.
    this.tail = result.catch(() => undefined);
    return result;
  }
}
