// Joins a download's parts into one verified file while it downloads. Part 1's file is the
// head: its bytes are hashed as they arrive; each later part, once complete and once every
// part before it is in the head, is appended to the head (hashed on the way) and its file
// removed. So the hash and most of the copying happen during the download, and when the
// last part lands only it is left to join. After a crash the head is trusted up to the end
// of the last part wholly in it (headExtent) and hashed again from disk.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rename, rm, stat, truncate, type FileHandle } from 'node:fs/promises';
import { ModelError } from '../../protocol/errors.js';
import { headExtent, type FileDownload, type Part } from './parts.js';

/** Reads and writes of a join: large, so a GiB file costs few system calls. */
const JOIN_CHUNK = 4 * 1024 * 1024;

export class Assembler {
  private readonly sha = createHash('sha256');
  /** A non-LFS file is checked against its git blob id instead. */
  private readonly git: Hash | undefined;
  private readonly complete: boolean[];
  private chain: Promise<void> = Promise.resolve();
  private joinError: unknown;

  private constructor(
    private readonly download: FileDownload,
    private readonly parts: readonly Part[],
    private readonly signal: AbortSignal,
    /** Parts wholly in the head. */
    public joined: number,
  ) {
    this.git = download.sha256 ? undefined : createHash('sha1').update(`blob ${download.size}\0`);
    this.complete = parts.map((p) => p.index < joined);
  }

  /** Reconcile the part files on disk and hash what the head already holds. */
  static async open(download: FileDownload, parts: readonly Part[], signal: AbortSignal): Promise<Assembler> {
    const head = parts[0]!.file;
    const size = (await stat(head).catch(() => undefined))?.size ?? 0;
    const extent = headExtent(parts, size);
    if (size > extent.length) await truncate(head, extent.length);
    // Parts already appended whose files a crash left behind.
    await Promise.all(parts.slice(1, extent.joined).map((p) => rm(p.file, { force: true })));
    const assembler = new Assembler(download, parts, signal, Math.max(1, extent.joined));
    if (extent.joined === 0) assembler.joined = 0;
    if (extent.length > 0) for await (const chunk of createReadStream(head, { signal, highWaterMark: JOIN_CHUNK }) as AsyncIterable<Buffer>) assembler.hashed(chunk);
    return assembler;
  }

  /** A chunk of part 1 just written to the head, in order. */
  headChunk(chunk: Buffer): void {
    this.hashed(chunk);
  }

  partDone(index: number): void {
    this.complete[index] = true;
    if (index === 0) this.joined = Math.max(this.joined, 1);
    this.chain = this.chain.then(() => this.joinReady()).catch((error: unknown) => void (this.joinError ??= error));
  }

  /** Wait for a join in progress (a failed download must not leave one writing). */
  async settle(): Promise<void> {
    await this.chain;
  }

  /** Every part is in: check the hash and rename the head into place. */
  async finish(): Promise<string> {
    await this.chain;
    if (this.joinError !== undefined) throw this.joinError;
    if (this.joined < this.parts.length) throw new ModelError('model.pull_failed', `${this.download.url}: ${this.parts.length - this.joined} part(s) were not joined`, {});
    const sha256 = this.sha.digest('hex');
    const gitOid = this.git?.digest('hex');
    const expected = this.download.sha256 ?? this.download.gitOid;
    const actual = this.download.sha256 ? sha256 : gitOid;
    if (expected !== null && actual !== expected) {
      await Promise.all(this.parts.map((p) => rm(p.file, { force: true })));
      throw new ModelError('model.checksum_mismatch', `${this.download.url}: the bytes do not match the published checksum (${expected}, got ${actual}); they were deleted`, { url: this.download.url, expected, actual });
    }
    await rename(this.parts[0]!.file, this.download.target);
    return sha256;
  }

  private hashed(chunk: Buffer): void {
    this.sha.update(chunk);
    this.git?.update(chunk);
  }

  /** Append every complete part that follows the head, in order. */
  private async joinReady(): Promise<void> {
    if (this.joined === 0) return;
    let head: FileHandle | undefined;
    try {
      while (this.joined < this.parts.length && this.complete[this.joined] && !this.signal.aborted) {
        const part = this.parts[this.joined]!;
        head ??= await open(this.parts[0]!.file, 'a');
        for await (const chunk of createReadStream(part.file, { signal: this.signal, highWaterMark: JOIN_CHUNK }) as AsyncIterable<Buffer>) {
          await head.write(chunk);
          this.hashed(chunk);
        }
        await rm(part.file, { force: true });
        this.joined++;
      }
    } finally {
      await head?.close();
    }
  }
}
