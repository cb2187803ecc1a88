// A general GGUF v3 writer: typed metadata, F32 tensors, little-endian, aligned data.
// Layout (ggml docs/gguf.md): header, metadata KVs, tensor infos, padding to the
// alignment, then each tensor's data padded to the alignment. gguf-py pads after the
// last tensor too, and so do we: llama.cpp's loader sizes the data section that way.
import { writeFileAtomic } from '../../config/atomic.js';
import {
  GGML_TYPE_F32, GGUF_DEFAULT_ALIGNMENT, GGUF_MAGIC, GGUF_SCALAR_TYPES, GGUF_TYPE_ARRAY, GGUF_VERSION,
  alignUp, type GgufBigType, type GgufNumberType, type GgufScalarType,
} from './format.js';

export type GgufScalarValue =
  | { readonly type: GgufNumberType; readonly value: number }
  | { readonly type: GgufBigType; readonly value: bigint }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'string'; readonly value: string };

export type GgufArrayValue =
  | { readonly type: 'array'; readonly of: GgufNumberType; readonly value: readonly number[] }
  | { readonly type: 'array'; readonly of: GgufBigType; readonly value: readonly bigint[] }
  | { readonly type: 'array'; readonly of: 'bool'; readonly value: readonly boolean[] }
  | { readonly type: 'array'; readonly of: 'string'; readonly value: readonly string[] };

export type GgufValue = GgufScalarValue | GgufArrayValue;

export interface GgufTensor {
  readonly name: string;
  /** Dimensions fastest-first (ggml's ne[0], ne[1], …). */
  readonly dims: readonly number[];
  readonly data: Float32Array;
}

export interface GgufContents {
  /** Written in insertion order. `general.alignment` (uint32), when present, sets the alignment. */
  readonly metadata: Readonly<Record<string, GgufValue>>;
  readonly tensors: readonly GgufTensor[];
}

/** Short constructors for typed values: `gguf.uint32(2048)`, `gguf.strings(['a'])`. */
export const gguf = {
  uint8: (value: number): GgufValue => ({ type: 'uint8', value }),
  int8: (value: number): GgufValue => ({ type: 'int8', value }),
  uint16: (value: number): GgufValue => ({ type: 'uint16', value }),
  int16: (value: number): GgufValue => ({ type: 'int16', value }),
  uint32: (value: number): GgufValue => ({ type: 'uint32', value }),
  int32: (value: number): GgufValue => ({ type: 'int32', value }),
  uint64: (value: bigint): GgufValue => ({ type: 'uint64', value }),
  int64: (value: bigint): GgufValue => ({ type: 'int64', value }),
  float32: (value: number): GgufValue => ({ type: 'float32', value }),
  float64: (value: number): GgufValue => ({ type: 'float64', value }),
  bool: (value: boolean): GgufValue => ({ type: 'bool', value }),
  string: (value: string): GgufValue => ({ type: 'string', value }),
  strings: (value: readonly string[]): GgufValue => ({ type: 'array', of: 'string', value }),
  float32s: (value: readonly number[]): GgufValue => ({ type: 'array', of: 'float32', value }),
  int32s: (value: readonly number[]): GgufValue => ({ type: 'array', of: 'int32', value }),
  uint32s: (value: readonly number[]): GgufValue => ({ type: 'array', of: 'uint32', value }),
};

/** Encode a whole GGUF file into memory. Throws on values that do not fit their type. */
export function encodeGguf(contents: GgufContents): Buffer {
  const alignment = alignmentOf(contents.metadata);
  const out = new Chunks();
  const entries = Object.entries(contents.metadata);
  out.u32(GGUF_MAGIC).u32(GGUF_VERSION).u64(BigInt(contents.tensors.length)).u64(BigInt(entries.length));
  for (const [key, value] of entries) {
    out.str(key);
    writeValue(out, value);
  }
  let dataOffset = 0;
  for (const tensor of contents.tensors) {
    checkTensor(tensor);
    out.str(tensor.name).u32(tensor.dims.length);
    for (const dim of tensor.dims) out.u64(BigInt(dim));
    out.u32(GGML_TYPE_F32).u64(BigInt(dataOffset));
    dataOffset += alignUp(tensor.data.length * 4, alignment);
  }
  out.padTo(alignment);
  for (const tensor of contents.tensors) {
    out.f32s(tensor.data);
    out.padTo(alignment);
  }
  return out.concat();
}

/** Encode and write atomically (temp file + rename). */
export async function writeGguf(path: string, contents: GgufContents): Promise<void> {
  await writeFileAtomic(path, encodeGguf(contents));
}

function alignmentOf(metadata: Readonly<Record<string, GgufValue>>): number {
  const entry = metadata['general.alignment'];
  if (entry === undefined) return GGUF_DEFAULT_ALIGNMENT;
  if (entry.type !== 'uint32') throw new TypeError('general.alignment must be a uint32');
  const value = entry.value;
  if (value <= 0 || (value & (value - 1)) !== 0) throw new RangeError(`general.alignment ${value} is not a power of 2`);
  return value;
}

function checkTensor(tensor: GgufTensor): void {
  const count = tensor.dims.reduce((product, dim) => product * dim, 1);
  if (tensor.dims.length === 0 || tensor.dims.length > 4 || !tensor.dims.every((d) => Number.isInteger(d) && d > 0)) {
    throw new RangeError(`tensor ${tensor.name}: dims must be 1 to 4 positive integers`);
  }
  if (count !== tensor.data.length) {
    throw new RangeError(`tensor ${tensor.name}: dims hold ${count} values but data has ${tensor.data.length}`);
  }
}

function writeValue(out: Chunks, entry: GgufValue): void {
  if (entry.type === 'array') {
    out.u32(GGUF_TYPE_ARRAY).u32(GGUF_SCALAR_TYPES[entry.of]).u64(BigInt(entry.value.length));
    for (const item of entry.value) writeScalar(out, entry.of, item);
    return;
  }
  out.u32(GGUF_SCALAR_TYPES[entry.type]);
  writeScalar(out, entry.type, entry.value);
}

function writeScalar(out: Chunks, type: GgufScalarType, value: number | bigint | boolean | string): void {
  const fixed = fixedScalar(type, value);
  if (fixed) out.push(fixed);
  else out.str(String(value));
}

function fixedScalar(type: GgufScalarType, value: number | bigint | boolean | string): Buffer | undefined {
  const b = Buffer.alloc(8);
  switch (type) {
    case 'uint8': return b.subarray(0, b.writeUInt8(Number(value)));
    case 'int8': return b.subarray(0, b.writeInt8(Number(value)));
    case 'uint16': return b.subarray(0, b.writeUInt16LE(Number(value)));
    case 'int16': return b.subarray(0, b.writeInt16LE(Number(value)));
    case 'uint32': return b.subarray(0, b.writeUInt32LE(Number(value)));
    case 'int32': return b.subarray(0, b.writeInt32LE(Number(value)));
    case 'float32': return b.subarray(0, b.writeFloatLE(Number(value)));
    case 'float64': return b.subarray(0, b.writeDoubleLE(Number(value)));
    case 'bool': return b.subarray(0, b.writeUInt8(value ? 1 : 0));
    case 'uint64': return b.subarray(0, b.writeBigUInt64LE(BigInt(value)));
    case 'int64': return b.subarray(0, b.writeBigInt64LE(BigInt(value)));
    case 'string': return undefined;
  }
}

/** An append-only list of little-endian chunks that tracks its length for padding. */
class Chunks {
  private readonly parts: Buffer[] = [];
  private length = 0;

  push(part: Buffer): this {
    this.parts.push(part);
    this.length += part.length;
    return this;
  }

  u32(value: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value);
    return this.push(b);
  }

  u64(value: bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(value);
    return this.push(b);
  }

  str(value: string): this {
    const bytes = Buffer.from(value, 'utf8');
    return this.u64(BigInt(bytes.length)).push(bytes);
  }

  f32s(values: Float32Array): this {
    const b = Buffer.alloc(values.length * 4);
    for (let i = 0; i < values.length; i++) b.writeFloatLE(values[i] ?? 0, i * 4);
    return this.push(b);
  }

  padTo(alignment: number): this {
    const padding = alignUp(this.length, alignment) - this.length;
    return padding > 0 ? this.push(Buffer.alloc(padding)) : this;
  }

  concat(): Buffer {
    return Buffer.concat(this.parts, this.length);
  }
}
