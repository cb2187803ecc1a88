// An engine's stdout and stderr go straight into an append-mode log file under the slot's
// state directory, never through a pipe: an engine must outlive a gateway crash (to be
// re-adopted), and a pipe whose reader died would kill it with EPIPE on its next log line.
// The gateway tails the file into a bounded ring of recent lines and keeps the file under
// a size cap by rotating it in place (O_APPEND writers follow a truncation). Tailing runs on
// the supervisor's tick while requests flow, so it reads asynchronously, one pump at a time;
// opening it for a new engine is asynchronous too (a cold start is on a request's path).
import { close, fstat, open as openDescriptor } from 'node:fs';
import { copyFile, open, stat, truncate } from 'node:fs/promises';
import { LogRing } from '../lib/supervision/log-ring.js';

const RING_LINES = 500;
/**
 * Longest line the ring keeps (longer ones are cut, marked "…"): the ring is RING_LINES lines,
 * and an engine that logs a whole prompt on one line (or never ends one) must not make it
 * hold megabytes. The file keeps the whole line (within its own cap, maxBytes).
 */
export const RING_LINE_MAX_CHARS = 8192;
const READ_CHUNK = 64 * 1024;

export class EngineLog {
  // A line without an end yet that is already too long is taken as it is, so it cannot grow.
  private readonly ring = new LogRing({ capacity: RING_LINES, lineMax: RING_LINE_MAX_CHARS, partialMax: RING_LINE_MAX_CHARS });
  private offset = 0;
  /** Bumped by openForChild: a pump under way for the previous engine drops what it read. */
  private generation = 0;
  private pumping: Promise<void> | null = null;
  private pumpWanted = false;
  /** Lines read since openForChild: the running engine's own, at the end of the ring. */
  private linesSinceOpen = 0;
  private readonly listeners = new Set<(line: string) => void>();

  constructor(
    readonly path: string,
    private readonly maxBytes = 10 * 1024 * 1024,
  ) {}

  /** A file descriptor for the child's stdout and stderr; the caller closes it after spawn. */
  async openForChild(): Promise<number> {
    const fd = await openForAppend(this.path);
    const size = await sizeOf(fd).catch((error: unknown) => {
      close(fd, () => undefined);
      throw error;
    });
    // From here on one synchronous step: a pump under way sees the new generation before it
    // could add what it read to the new offset.
    this.offset = size; // a fresh start reads only what the new engine writes
    this.ring.dropPartial();
    this.linesSinceOpen = 0;
    this.generation++;
    return fd;
  }

  /**
   * Read what the engine wrote since the last pump into the ring; rotate when too big. Pumps
   * never overlap: a call during one makes it read once more, so the promise resolves after
   * a read that began after the call (everything written before it is in the ring).
   */
  pump(): Promise<void> {
    this.pumpWanted = true;
    return (this.pumping ??= this.drain());
  }

  async tail(lines: number): Promise<string[]> {
    await this.pump();
    return this.recent(lines);
  }

  /** The lines already in the ring, without reading the file. */
  recent(lines: number): string[] {
    return this.ring.whole(lines);
  }

  /** The lines the running engine wrote that are still in the ring (all of them for an adopted engine). */
  currentEngineLines(): string[] {
    return this.linesSinceOpen === 0 ? [] : this.ring.whole(this.linesSinceOpen);
  }

  subscribe(listener: (line: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async drain(): Promise<void> {
    try {
      while (this.pumpWanted) {
        this.pumpWanted = false;
        await this.readNew().catch(() => undefined); // a vanished file or a failed read: next pump tries again
      }
    } finally {
      this.pumping = null;
    }
  }

  private async readNew(): Promise<void> {
    const size = (await stat(this.path)).size;
    if (size < this.offset) this.offset = 0; // rotated or truncated elsewhere
    if (size > this.offset) await this.readFrom(size);
    if (size > this.maxBytes) await this.rotate();
  }

  private async readFrom(size: number): Promise<void> {
    const generation = this.generation;
    const file = await open(this.path, 'r');
    try {
      const buffer = Buffer.alloc(READ_CHUNK);
      while (this.offset < size) {
        const { bytesRead } = await file.read(buffer, 0, Math.min(READ_CHUNK, size - this.offset), this.offset);
        if (bytesRead <= 0 || generation !== this.generation) break;
        this.offset += bytesRead;
        this.accept(buffer.toString('utf8', 0, bytesRead));
      }
    } finally {
      await file.close();
    }
  }

  private accept(text: string): void {
    const lines = this.ring.write(text);
    this.linesSinceOpen += lines.length;
    for (const line of lines) for (const listener of this.listeners) listener(line);
  }

  private async rotate(): Promise<void> {
    try {
      await copyFile(this.path, `${this.path}.1`);
      await truncate(this.path, 0);
      this.offset = 0;
    } catch {
      // Rotation is best effort; the next pump tries again.
    }
  }
}

/** A raw descriptor, not a FileHandle: the child inherits it and the caller closes it. */
function openForAppend(path: string): Promise<number> {
  return new Promise((resolve, reject) => openDescriptor(path, 'a', 0o640, (error, fd) => (error ? reject(error) : resolve(fd))));
}

function sizeOf(fd: number): Promise<number> {
  return new Promise((resolve, reject) => fstat(fd, (error, stats) => (error ? reject(error) : resolve(stats.size))));
}
