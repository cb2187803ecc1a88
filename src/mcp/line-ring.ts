// The last lines a tool server wrote to stderr, like a slot's log ring: bounded, newest last.
// stderr arrives in chunks that split lines anywhere, so a partial line waits for its end.

export class LineRing {
  private readonly lines: string[] = [];
  private partial = '';

  constructor(private readonly capacity = 200) {}

  /** Append a chunk of output. */
  write(chunk: string | Buffer): void {
    const text = this.partial + chunk.toString();
    const parts = text.split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    // A line without an end that grows too long is cut, so one chatty write cannot hold memory.
    if (this.partial.length > 8192) {
      parts.push(this.partial);
      this.partial = '';
    }
    for (const line of parts) this.push(line);
  }

  /** A line of svc's own about the server (start, exit), marked so it reads apart from the server's. */
  note(line: string): void {
    this.flush();
    this.push(`[svc] ${line}`);
  }

  /** The last `n` lines (all by default), the unfinished one included. */
  recent(n = this.capacity): string[] {
    const all = this.partial === '' ? this.lines : [...this.lines, this.partial];
    return all.slice(-n);
  }

  /** The end of the output as one string, for last_error and mcp.install_failed. */
  tail(n = 20): string {
    return this.recent(n).filter((l) => !l.startsWith('[svc] ')).join('\n');
  }

  private flush(): void {
    if (this.partial !== '') this.push(this.partial);
    this.partial = '';
  }

  private push(line: string): void {
    this.lines.push(line.length > 2000 ? `${line.slice(0, 2000)}…` : line);
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
  }
}
