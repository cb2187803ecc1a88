// A small tar (ustar, with pax and GNU long names) reader and writer over buffers: enough
// for registry backups and the package tarballs `svc update` installs, and strict where it
// matters. Reading refuses the whole archive when any entry is a link, a device or a fifo,
// or names an absolute path or a ".." part, so an archive can never place or point anything
// outside where it is read into.

export interface TarEntry {
  readonly path: string;
  readonly type: 'file' | 'directory';
  readonly data: Buffer;
}

export class TarError extends Error {}

const BLOCK = 512;
const KINDS: Readonly<Record<string, string>> = { '1': 'a hard link', '2': 'a symbolic link', '3': 'a character device', '4': 'a block device', '6': 'a fifo', '7': 'a contiguous file' };

const text = (block: Buffer, at: number, length: number) => {
  const raw = block.subarray(at, at + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString('utf8');
};
const octal = (block: Buffer, at: number, length: number) => {
  const value = text(block, at, length).trim();
  if (!/^[0-7]*$/.test(value)) throw new TarError(`not a tar archive (a header field is not octal: ${JSON.stringify(value)})`);
  return value === '' ? 0 : parseInt(value, 8);
};

/** The path, or why it may not be extracted: absolute, "..", empty or a NUL. */
export function unsafeTarPath(path: string): string | null {
  if (path === '' || path.includes('\0')) return 'an empty name';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'an absolute path';
  if (path.split(/[\\/]/).includes('..')) return 'a ".." part';
  return null;
}

export function readTar(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let longName: string | undefined;
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) return entries;
    const sum = header.reduce((acc, b, i) => acc + (i >= 148 && i < 156 ? 32 : b), 0);
    if (sum !== octal(header, 148, 8)) throw new TarError('not a tar archive (a header checksum does not match)');
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156]!) || '0';
    const data = archive.subarray(offset + BLOCK, offset + BLOCK + size);
    if (data.length < size) throw new TarError('the archive is truncated');
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    // POSIX ustar headers ("ustar\0") keep a name prefix here; old GNU ones ("ustar  ") keep times.
    const prefix = header.subarray(257, 263).toString('latin1') === 'ustar\0' ? text(header, 345, 155) : '';
    let path = longName ?? (prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100));
    longName = undefined;
    if (type === 'L') {
      longName = data.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    if (type === 'x') {
      longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString('utf8'))?.[1];
      continue;
    }
    if (type === 'g') continue;
    path = path.replace(/^\.\//, '');
    const kind = KINDS[type] ?? (type === '0' || type === '\0' || type === '5' ? undefined : `an entry of type ${JSON.stringify(type)}`);
    if (kind) throw new TarError(`the archive holds ${kind} (${path}); refused: a backup holds only plain files`);
    const unsafe = unsafeTarPath(path);
    if (unsafe) throw new TarError(`the archive names ${unsafe} (${JSON.stringify(path)}); refused`);
    entries.push({ path: path.replace(/\/+$/, ''), type: type === '5' ? 'directory' : 'file', data: type === '5' ? Buffer.alloc(0) : Buffer.from(data) });
  }
  if (entries.length === 0) throw new TarError('not a tar archive (no entries)');
  return entries;
}

/** A ustar archive of plain files (names up to 100 bytes, or 255 with a prefix). */
export function writeTar(files: ReadonlyArray<{ path: string; data: Buffer; mode?: number; mtime?: Date }>): Buffer {
  const blocks: Buffer[] = [];
  for (const file of files) {
    if (unsafeTarPath(file.path)) throw new TarError(`cannot archive ${JSON.stringify(file.path)}`);
    const header = Buffer.alloc(BLOCK);
    const [prefix, name] = file.path.length <= 100 ? ['', file.path] : [file.path.slice(0, file.path.lastIndexOf('/', file.path.length - 1)), file.path.slice(file.path.lastIndexOf('/') + 1)];
    if (Buffer.byteLength(name) > 100 || Buffer.byteLength(prefix) > 155) throw new TarError(`path too long for a tar header: ${file.path}`);
    const put = (at: number, length: number, value: string) => header.write(value, at, length, 'utf8');
    const num = (at: number, length: number, value: number) => put(at, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
    put(0, 100, name);
    num(100, 8, file.mode ?? 0o644);
    num(108, 8, 0);
    num(116, 8, 0);
    num(124, 12, file.data.length);
    num(136, 12, Math.floor((file.mtime ?? new Date()).getTime() / 1000));
    put(148, 8, '        ');
    put(156, 1, '0');
    put(257, 8, 'ustar\u000000');
    put(345, 155, prefix);
    num(148, 7, header.reduce((acc, b) => acc + b, 0));
    blocks.push(header, file.data, Buffer.alloc((BLOCK - (file.data.length % BLOCK)) % BLOCK));
  }
  blocks.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(blocks);
}
