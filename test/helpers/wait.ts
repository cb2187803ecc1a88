// The one way a test waits for something it cannot be told about (a process exiting, a
// file appearing, a slot turning ready behind an HTTP API): read it again until it is what
// the test wants. The timeout bounds the wait and is never a claim about speed (DESIGN.md,
// "No timed assertions"); running out of it fails the test with what it waited for and the
// last thing it saw, so a failure says where it stuck.

export interface WaitOptions<T> {
  /** What the test waits for, as the failure message should name it ("the engine to exit"). */
  what: string;
  /** When the value read is the one wanted; default: when it is truthy. */
  until?: (value: T) => boolean;
  /** How long to keep reading, in ms (default 15 s). */
  timeout?: number;
  /** Pause between two reads, in ms (default 50). */
  interval?: number;
}

/**
 * Read `read` until `until` accepts its value, and return that value. A read that throws
 * counts as not yet (a port that refuses connections until the server listens); the last
 * error is in the failure message.
 */
export async function waitFor<T>(read: () => T | Promise<T>, options: WaitOptions<T> & { until: (value: T) => boolean }): Promise<T>;
export async function waitFor<T>(read: () => T | Promise<T>, options: Omit<WaitOptions<T>, 'until'>): Promise<NonNullable<T>>;
export async function waitFor<T>(read: () => T | Promise<T>, options: WaitOptions<T>): Promise<T> {
  const { what, until = Boolean, timeout = 15_000, interval = 50 } = options;
  const deadline = Date.now() + timeout;
  for (;;) {
    let last: string;
    try {
      const value = await read();
      if (until(value)) return value;
      last = shown(value);
    } catch (error) {
      last = `an error: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (Date.now() >= deadline) throw new Error(`waited ${timeout} ms for ${what}; the last read gave ${last}`);
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 800 ? `${text.slice(0, 800)}…` : text;
}
