// GGUF constants shared by the writer and the reader. The format is specified in
// ggml's docs/gguf.md; the numbers below are `enum gguf_type` from ggml/include/gguf.h.

/** "GGUF" read as a little-endian uint32. */
export const GGUF_MAGIC = 0x46554747;
export const GGUF_VERSION = 3;
export const GGUF_DEFAULT_ALIGNMENT = 32;
/** ggml_type GGML_TYPE_F32; the only tensor type this module writes. */
export const GGML_TYPE_F32 = 0;

export const GGUF_SCALAR_TYPES = {
  uint8: 0,
  int8: 1,
  uint16: 2,
  int16: 3,
  uint32: 4,
  int32: 5,
  float32: 6,
  bool: 7,
  string: 8,
  uint64: 10,
  int64: 11,
  float64: 12,
} as const;

export const GGUF_TYPE_ARRAY = 9;

export type GgufScalarType = keyof typeof GGUF_SCALAR_TYPES;
export type GgufNumberType = Exclude<GgufScalarType, 'bool' | 'string' | 'uint64' | 'int64'>;
export type GgufBigType = 'uint64' | 'int64';

/** A type name as the reader reports it: a scalar name, or `array<element>`. */
export type GgufTypeName = GgufScalarType | `array<${GgufScalarType}>`;

const NAME_BY_CODE = new Map<number, GgufScalarType>(
  Object.entries(GGUF_SCALAR_TYPES).map(([name, code]) => [code, name as GgufScalarType]),
);

export function scalarTypeName(code: number): GgufScalarType | undefined {
  return NAME_BY_CODE.get(code);
}

/** Byte width of fixed-size scalars; strings are variable (undefined). */
export function scalarWidth(type: GgufScalarType): number | undefined {
  switch (type) {
    case 'uint8': case 'int8': case 'bool': return 1;
    case 'uint16': case 'int16': return 2;
    case 'uint32': case 'int32': case 'float32': return 4;
    case 'uint64': case 'int64': case 'float64': return 8;
    case 'string': return undefined;
  }
}

export function alignUp(offset: number, alignment: number): number {
  return Math.ceil(offset / alignment) * alignment;
}
