// The last lines a supervised process wrote (an engine's log, a tool server's or the memory
// database's stderr): bounded in lines and in line length, newest last. Output arrives in
// chunks that split lines anywhere, so a partial line waits for its end; one that grows past
// `partialMax` without an end is taken as a line, so a chatty writer cannot make it hold
// megabytes.

export interface LogRingLimits {
  /** Lines kept. */
  capacity: number;
  /** Longest line kept; a longer one is cut and marked "…". */
  lineMax: number;
  /** Longest unfinished line held before it is taken as a line. */
  partialMax: number;
}

/** svc's own lines about the process (a start, an exit) read apart from the process's. */
export const NOTE_PREFIX = '[svc] ';

export class LogRing {
  private readonly lines: string[] = [];
  private partial = '';
  private readonly limits: LogRingLimits;

  constructor(limits: Partial<LogRingLimits> = {}) {
    this.limits = { capacity: 200, lineMax: 2000, partialMax: 8192, ...limits };
  }

  /** Append a chunk of output; returns the whole lines it completed, as kept. */
  write(chunk: string | Buffer): string[] {
    const parts = (this.partial + chunk.toString()).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    if (this.partial.length > this.limits.partialMax) {
      parts.push(this.partial);
      this.partial = '';
    }
    return parts.map((line) => this.push(line));
  }

  /** A line of svc's own about the process, after what the process wrote so far. */
  note(line: string): void {
    this.flush();
    this.push(`${NOTE_PREFIX}${line}`);
  }

  /** The last `n` lines, the unfinished one included. */
  recent(n = this.limits.capacity): string[] {
    const all = this.partial === '' ? this.lines : [...this.lines, this.partial];
    return all.slice(-n);
  }

  /** The last `n` whole lines. */
  whole(n = this.limits.capacity): string[] {
    return this.lines.slice(-n);
  }

  /** The end of the process's own output as one string (svc's notes left out), for a last error. */
  tail(n = 20): string {
    return this.recent(n).filter((l) => !l.startsWith(NOTE_PREFIX)).join('\n');
  }

  /** Forget the unfinished line (a new process starts writing). */
  dropPartial(): void {
    this.partial = '';
  }

  /** Forget everything. */
  clear(): void {
    this.lines.length = 0;
    this.partial = '';
  }

  private flush(): void {
    if (this.partial !== '') this.push(this.partial);
    this.partial = '';
  }

  private push(whole: string): string {
    const line = whole.length > this.limits.lineMax ? `${whole.slice(0, this.limits.lineMax)}…` : whole;
    this.lines.push(line);
    if (this.lines.length > this.limits.capacity) this.lines.splice(0, this.lines.length - this.limits.capacity);
    return line;
  }
}
