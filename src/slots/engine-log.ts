// An engine's stdout and stderr go straight into an append-mode log file under the slot's
// state directory, never through a pipe: an engine must outlive a gateway crash (to be
// re-adopted), and a pipe whose reader died would kill it with EPIPE on its next log line.
// The gateway tails the file into a bounded ring of recent lines and keeps the file under
// a size cap by rotating it in place (O_APPEND writers follow a truncation).
import { closeSync, copyFileSync, fstatSync, openSync, readSync, statSync, truncateSync } from 'node:fs';

const RING_LINES = 500;
const READ_CHUNK = 64 * 1024;

export class EngineLog {
  private readonly ring: string[] = [];
  private offset = 0;
  private partial = '';
  private readonly listeners = new Set<(line: string) => void>();

  constructor(
    readonly path: string,
    private readonly maxBytes = 10 * 1024 * 1024,
  ) {}

  /** A file descriptor for the child's stdout and stderr; the caller closes it after spawn. */
  openForChild(): number {
    const fd = openSync(this.path, 'a', 0o640);
    this.offset = fstatSync(fd).size; // a fresh start reads only what the new engine writes
    this.partial = '';
    return fd;
  }

  /** Read what the engine wrote since the last call into the ring; rotate when too big. */
  pump(): void {
    let size: number;
    try {
      size = statSync(this.path).size;
    } catch {
      return;
    }
    if (size < this.offset) this.offset = 0; // rotated or truncated elsewhere
    if (size > this.offset) this.readFrom(size);
    if (size > this.maxBytes) this.rotate();
  }

  tail(lines: number): string[] {
    this.pump();
    return this.ring.slice(-lines);
  }

  /** The last lines as one string, for error details. */
  tailText(lines = 20): string {
    return this.tail(lines).join('\n');
  }

  subscribe(listener: (line: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private readFrom(size: number): void {
    const fd = openSync(this.path, 'r');
    try {
      const buffer = Buffer.alloc(READ_CHUNK);
      while (this.offset < size) {
        const n = readSync(fd, buffer, 0, Math.min(READ_CHUNK, size - this.offset), this.offset);
        if (n <= 0) break;
        this.offset += n;
        this.accept(buffer.toString('utf8', 0, n));
      }
    } finally {
      closeSync(fd);
    }
  }

  private accept(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      this.ring.push(line);
      for (const listener of this.listeners) listener(line);
    }
    if (this.ring.length > RING_LINES) this.ring.splice(0, this.ring.length - RING_LINES);
  }

  private rotate(): void {
    try {
      copyFileSync(this.path, `${this.path}.1`);
      truncateSync(this.path, 0);
      this.offset = 0;
    } catch {
      // Rotation is best effort; the next pump tries again.
    }
  }
}
