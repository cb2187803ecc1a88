import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GgufSkippedArray, readGgufHeader } from './reader.js';
import { encodeGguf, gguf, writeGguf, type GgufContents } from './writer.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-gguf-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const sample: GgufContents = {
  metadata: {
    'general.architecture': gguf.string('test'),
    'general.alignment': gguf.uint32(64),
    'u8': gguf.uint8(255),
    'i8': gguf.int8(-128),
    'u16': gguf.uint16(65535),
    'i16': gguf.int16(-32768),
    'u32': gguf.uint32(4294967295),
    'i32': gguf.int32(-2147483648),
    'u64': gguf.uint64(2n ** 64n - 1n),
    'i64': gguf.int64(-(2n ** 63n)),
    'f32': gguf.float32(0.5),
    'f64': gguf.float64(Math.PI),
    'yes': gguf.bool(true),
    'no': gguf.bool(false),
    'text': gguf.string('héllo ▁ <|im_start|>'),
    'strings': gguf.strings(['a', '', '▁the']),
    'floats': gguf.float32s([1.5, -2.25]),
    'ints': gguf.int32s([-1, 0, 7]),
    'uints': gguf.uint32s([0, 4294967295]),
  },
  tensors: [
    { name: 'a.weight', dims: [3], data: new Float32Array([1, 2, 3]) },
    { name: 'b.weight', dims: [2, 2], data: new Float32Array([0.25, -1, 8, 0]) },
  ],
};

describe('encodeGguf + readGgufHeader', () => {
  it('round-trips metadata values and their types', async () => {
    const path = join(dir, 'sample.gguf');
    await writeGguf(path, sample);
    const header = await readGgufHeader(path);
    expect(header.version).toBe(3);
    expect(header.tensorCount).toBe(2);
    expect(header.metadata).toEqual({
      'general.architecture': 'test', 'general.alignment': 64,
      u8: 255, i8: -128, u16: 65535, i16: -32768, u32: 4294967295, i32: -2147483648,
      u64: 2n ** 64n - 1n, i64: -(2n ** 63n), f32: 0.5, f64: Math.PI, yes: true, no: false,
      text: 'héllo ▁ <|im_start|>', strings: ['a', '', '▁the'], floats: [1.5, -2.25], ints: [-1, 0, 7],
      uints: [0, 4294967295],
    });
    expect(header.types).toMatchObject({
      u8: 'uint8', i8: 'int8', u16: 'uint16', i16: 'int16', u32: 'uint32', i32: 'int32', u64: 'uint64',
      i64: 'int64', f32: 'float32', f64: 'float64', yes: 'bool', text: 'string',
      strings: 'array<string>', floats: 'array<float32>', ints: 'array<int32>', uints: 'array<uint32>',
    });
  });

  it('aligns the data section and pads every tensor to the alignment', () => {
    const bytes = encodeGguf(sample);
    expect(bytes.length % 64).toBe(0);
    // The last tensor sits at the end, padded: 4 floats, then zeros up to 64 bytes.
    const last = bytes.subarray(bytes.length - 64);
    expect([0, 1, 2, 3].map((i) => last.readFloatLE(i * 4))).toEqual([0.25, -1, 8, 0]);
    const first = bytes.subarray(bytes.length - 128, bytes.length - 64);
    expect([0, 1, 2].map((i) => first.readFloatLE(i * 4))).toEqual([1, 2, 3]);
    expect(first.readFloatLE(12)).toBe(0);
  });

  it('is deterministic and starts with the magic and version 3', () => {
    const a = encodeGguf(sample);
    expect(a.equals(encodeGguf(sample))).toBe(true);
    expect(a.subarray(0, 4).toString('latin1')).toBe('GGUF');
    expect(a.readUInt32LE(4)).toBe(3);
  });

  it('rejects values that do not fit their type, and bad tensors', () => {
    expect(() => encodeGguf({ metadata: { x: gguf.uint8(256) }, tensors: [] })).toThrow(RangeError);
    expect(() => encodeGguf({ metadata: { x: gguf.int32s([2 ** 31]) }, tensors: [] })).toThrow(RangeError);
    expect(() => encodeGguf({ metadata: { 'general.alignment': gguf.uint32(24) }, tensors: [] })).toThrow(/power of 2/);
    const bad = { name: 't', dims: [2, 2], data: new Float32Array(3) };
    expect(() => encodeGguf({ metadata: {}, tensors: [bad] })).toThrow(/dims hold 4/);
  });
});

describe('readGgufHeader', () => {
  it('rejects a file that is not GGUF', async () => {
    const path = join(dir, 'not.gguf');
    writeFileSync(path, '{"this": "is json, not a model", "padding": "................"}');
    await expect(readGgufHeader(path)).rejects.toThrow(/is not a GGUF file/);
    writeFileSync(path, 'GG');
    await expect(readGgufHeader(path)).rejects.toThrow(/is not a GGUF file/);
  });

  it('rejects a truncated header', async () => {
    const path = join(dir, 'cut.gguf');
    writeFileSync(path, encodeGguf(sample).subarray(0, 100));
    await expect(readGgufHeader(path)).rejects.toThrow(/truncated/);
  });

  it('summarises long arrays, and reads metadata larger than one chunk', async () => {
    const long = Array.from({ length: 20_000 }, (_, i) => `token-${i}`);
    const path = join(dir, 'long.gguf');
    await writeGguf(path, { metadata: { long: gguf.strings(long), floats: gguf.float32s(new Array(5000).fill(1)), after: gguf.uint32(7) }, tensors: [] });
    expect(readFileSync(path).length).toBeGreaterThan(200_000);
    const skipped = await readGgufHeader(path);
    expect(skipped.metadata.long).toEqual(new GgufSkippedArray('string', 20_000));
    expect(skipped.metadata.floats).toEqual(new GgufSkippedArray('float32', 5000));
    expect(skipped.metadata.after).toBe(7);
    const whole = await readGgufHeader(path, { maxArrayLength: Infinity });
    expect(whole.metadata.long).toEqual(long);
  });
});
