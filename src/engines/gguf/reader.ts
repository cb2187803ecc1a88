// Reads a GGUF file's header and metadata without loading the file: it pulls the
// first bytes in chunks and stops before the tensor infos. Used to derive a model's
// context size, architecture, chat template and pooling before an engine starts, and a
// pull's fit check from a part file or over Range reads (models/hf/remote-gguf.ts).
// Ours rather than @huggingface/gguf (issue 23): that one reads only a path or a URL through
// fetch (not a part file, not a ByteSource), materialises every array (a 150k-token
// vocabulary), reads every tensor info, and returns zeros for a truncated header.
import { open } from 'node:fs/promises';
import {
  GGUF_MAGIC, GGUF_TYPE_ARRAY, scalarTypeName, scalarWidth, type GgufScalarType, type GgufTypeName,
} from './format.js';

const CHUNK = 64 * 1024;
const MAX_STRING = 64 * 1024 * 1024;
const DEFAULT_MAX_ARRAY = 4096;

/** What an array longer than `maxArrayLength` reads as: its type and length, not its items. */
export class GgufSkippedArray {
  constructor(readonly elementType: GgufScalarType, readonly length: number) {}
}

export interface GgufHeader {
  readonly version: number;
  readonly tensorCount: number;
  /** 64-bit integers read as bigint, other numbers as number, arrays as arrays (or GgufSkippedArray). */
  readonly metadata: Record<string, unknown>;
  readonly types: Record<string, GgufTypeName>;
}

export interface ReadGgufOptions {
  /** Arrays with more items than this come back as GgufSkippedArray (default 4096). */
  readonly maxArrayLength?: number;
}

/** Bytes a header is read from: a local file, or a remote one over HTTP Range requests. */
export interface ByteSource {
  readonly size: number;
  /** Names the file in errors. */
  readonly label: string;
  /** How many bytes one read asks for at least (a remote source wants few, large reads). */
  readonly chunk: number;
  /** Fill `buffer[offset, offset+length)` from `position`; resolves with the bytes read (0 at the end). */
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<number>;
}

export async function readGgufHeader(path: string, options: ReadGgufOptions = {}): Promise<GgufHeader> {
  const file = await open(path, 'r');
  try {
    const source: ByteSource = {
      size: (await file.stat()).size,
      label: path,
      chunk: CHUNK,
      read: async (buffer, offset, length, position) => (await file.read(buffer, offset, length, position)).bytesRead,
    };
    return await readGgufHeaderFrom(source, options);
  } finally {
    await file.close();
  }
}

export function readGgufHeaderFrom(source: ByteSource, options: ReadGgufOptions = {}): Promise<GgufHeader> {
  return readHeader(new Cursor(source), options.maxArrayLength ?? DEFAULT_MAX_ARRAY);
}

async function readHeader(cursor: Cursor, maxArrayLength: number): Promise<GgufHeader> {
  if (cursor.size < 24 || (await cursor.fixed(4)).readUInt32LE(0) !== GGUF_MAGIC) {
    throw new Error(`${cursor.path} is not a GGUF file (no "GGUF" magic at the start)`);
  }
  const version = (await cursor.fixed(4)).readUInt32LE(0);
  if (version !== 2 && version !== 3) throw new Error(`${cursor.path}: unsupported GGUF version ${version}`);
  const tensorCount = await cursor.count();
  const kvCount = await cursor.count();
  const metadata: Record<string, unknown> = {};
  const types: Record<string, GgufTypeName> = {};
  for (let i = 0; i < kvCount; i++) {
    const key = await cursor.string();
    const code = (await cursor.fixed(4)).readUInt32LE(0);
    if (code === GGUF_TYPE_ARRAY) {
      const elementType = cursor.typeName((await cursor.fixed(4)).readUInt32LE(0), key);
      types[key] = `array<${elementType}>`;
      metadata[key] = await readArray(cursor, elementType, maxArrayLength);
    } else {
      const type = cursor.typeName(code, key);
      types[key] = type;
      metadata[key] = await readScalar(cursor, type);
    }
  }
  return { version, tensorCount, metadata, types };
}

async function readArray(cursor: Cursor, type: GgufScalarType, maxLength: number): Promise<unknown> {
  const length = await cursor.count();
  if (length > maxLength) {
    const width = scalarWidth(type);
    if (width === undefined) await cursor.skipStrings(length);
    else await cursor.skip(width * length);
    return new GgufSkippedArray(type, length);
  }
  const items: unknown[] = [];
  for (let i = 0; i < length; i++) items.push(await readScalar(cursor, type));
  return items;
}

async function readScalar(cursor: Cursor, type: GgufScalarType): Promise<unknown> {
  if (type === 'string') return cursor.string();
  const width = scalarWidth(type) ?? 0;
  const b = await cursor.fixed(width);
  switch (type) {
    case 'uint8': return b.readUInt8(0);
    case 'int8': return b.readInt8(0);
    case 'uint16': return b.readUInt16LE(0);
    case 'int16': return b.readInt16LE(0);
    case 'uint32': return b.readUInt32LE(0);
    case 'int32': return b.readInt32LE(0);
    case 'float32': return b.readFloatLE(0);
    case 'float64': return b.readDoubleLE(0);
    case 'bool': return b.readUInt8(0) !== 0;
    case 'uint64': return b.readBigUInt64LE(0);
    case 'int64': return b.readBigInt64LE(0);
  }
}

/** Sequential reads over a source through a buffer refilled in chunk-sized reads. */
class Cursor {
  private buffer = Buffer.alloc(0);
  private bufferStart = 0;
  private position = 0;
  readonly size: number;
  readonly path: string;

  constructor(private readonly source: ByteSource) {
    this.size = source.size;
    this.path = source.label;
  }

  async fixed(length: number): Promise<Buffer> {
    if (this.position + length > this.size) throw new Error(`${this.path}: GGUF header is truncated`);
    const from = this.position - this.bufferStart;
    if (from < 0 || from + length > this.buffer.length) await this.fill(length);
    const start = this.position - this.bufferStart;
    this.position += length;
    return this.buffer.subarray(start, start + length);
  }

  /** A uint64 count that must fit in a JS number and in the file. */
  async count(): Promise<number> {
    const value = (await this.fixed(8)).readBigUInt64LE(0);
    if (value > BigInt(this.size)) throw new Error(`${this.path}: GGUF count ${value} exceeds the file size`);
    return Number(value);
  }

  async string(): Promise<string> {
    const length = await this.count();
    if (length > MAX_STRING) throw new Error(`${this.path}: GGUF string of ${length} bytes is too long`);
    return (await this.fixed(length)).toString('utf8');
  }

  async skip(length: number): Promise<void> {
    if (this.position + length > this.size) throw new Error(`${this.path}: GGUF header is truncated`);
    this.position += length;
  }

  /**
   * Skip `count` strings, reading only their lengths. A vocabulary runs to 150k strings: a
   * length already in the buffer is read without an await (one per string cost ~300 ms).
   */
  async skipStrings(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const at = this.position - this.bufferStart;
      let length: bigint;
      if (at >= 0 && at + 8 <= this.buffer.length) {
        length = this.buffer.readBigUInt64LE(at);
        this.position += 8;
      } else {
        length = (await this.fixed(8)).readBigUInt64LE(0);
      }
      if (length > BigInt(this.size - this.position)) throw new Error(`${this.path}: GGUF header is truncated`);
      this.position += Number(length);
    }
  }

  typeName(code: number, key: string): GgufScalarType {
    const name = scalarTypeName(code);
    if (name === undefined) throw new Error(`${this.path}: metadata ${key} has unknown GGUF type ${code}`);
    return name;
  }

  private async fill(length: number): Promise<void> {
    const want = Math.min(Math.max(length, this.source.chunk), this.size - this.position);
    const buffer = Buffer.alloc(want);
    let got = 0;
    while (got < want) {
      const bytesRead = await this.source.read(buffer, got, want - got, this.position + got);
      if (bytesRead === 0) throw new Error(`${this.path}: GGUF header is truncated`);
      got += bytesRead;
    }
    this.buffer = buffer;
    this.bufferStart = this.position;
  }
}

export interface GgufModelFacts {
  readonly architecture?: string;
  readonly name?: string;
  readonly contextLength?: number;
  readonly embeddingLength?: number;
  readonly poolingType?: number;
  readonly chatTemplate?: string;
}

/** The facts an engine adapter needs, looked up under `<architecture>.` keys. */
export function ggufModelFacts(header: GgufHeader): GgufModelFacts {
  const meta = header.metadata;
  const architecture = stringOf(meta['general.architecture']);
  const arch = (suffix: string): number | undefined => numberOf(meta[`${architecture ?? ''}.${suffix}`]);
  return {
    architecture,
    name: stringOf(meta['general.name']),
    contextLength: arch('context_length'),
    embeddingLength: arch('embedding_length'),
    poolingType: arch('pooling_type'),
    chatTemplate: stringOf(meta['tokenizer.chat_template']),
  };
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint' && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value);
  return undefined;
}
