// How a download is cut into parts and what of it is on disk: pure arithmetic over sizes,
// shared by the downloader, the assembler and the planner.
import { rm, stat } from 'node:fs/promises';

export interface FileDownload {
  readonly url: string;
  readonly size: number;
  /** SHA-256 to verify against, or null (then the git blob id, or nothing for a plain URL). */
  readonly sha256: string | null;
  readonly gitOid: string | null;
  /** Where the verified file goes. */
  readonly target: string;
}

/** Parts are at least this big, so a small file is one request; a big one has up to 16. */
export const MIN_PART_BYTES = 8 * 1024 * 1024;
const MAX_PARTS = 16;

export interface Part {
  readonly index: number;
  readonly start: number;
  readonly length: number;
  readonly file: string;
}

/** A file's parts: fixed by its size alone, so a resumed pull finds the same part files. */
export function partsOf(target: string, size: number): Part[] {
  const count = Math.max(1, Math.min(MAX_PARTS, Math.floor(size / MIN_PART_BYTES)));
  const each = Math.ceil(size / count);
  return Array.from({ length: count }, (_, index) => ({
    index,
    start: index * each,
    length: Math.max(0, Math.min(each, size - index * each)),
    file: `${target}.part${index + 1}of${count}`,
  }));
}

export const sizeOf = async (path: string) => (await stat(path).catch(() => undefined))?.size ?? 0;

/**
 * How much of the file the head (part 1's file, which later parts are appended to in order)
 * holds for sure: `joined` parts and `length` bytes. A head cut off in the middle of an
 * append counts only up to the start of that part, whose own file still exists.
 */
export function headExtent(parts: readonly Part[], headSize: number): { joined: number; length: number } {
  if (headSize <= parts[0]!.length) return { joined: headSize === parts[0]!.length ? 1 : 0, length: headSize };
  let joined = 1;
  while (joined < parts.length && parts[joined]!.start + parts[joined]!.length <= headSize) joined++;
  const last = parts[joined - 1]!;
  return { joined, length: last.start + last.length };
}

/** Bytes of this file already on disk (the whole file when it is in place). */
export async function bytesOnDisk(download: FileDownload): Promise<number> {
  if ((await sizeOf(download.target)) === download.size && download.size > 0) return download.size;
  const parts = partsOf(download.target, download.size);
  const head = headExtent(parts, await sizeOf(parts[0]!.file));
  let total = head.length;
  for (const part of parts.slice(Math.max(1, head.joined))) total += Math.min(part.length, await sizeOf(part.file));
  return total;
}

/** Remove every part file of a download (a cancel with discard, a checksum mismatch). */
export async function discardParts(target: string, size: number): Promise<void> {
  await Promise.all(partsOf(target, size).map((p) => rm(p.file, { force: true })));
}
