import { describe, expect, it } from 'vitest';
import { multipartBoundary, multipartField, withMultipartField } from './multipart.js';

const B = 'XyZ-boundary-123';

/** A multipart body from parts, with the given line end. */
function body(parts: Array<{ headers: string[]; content: string | Buffer }>, eol = '\r\n', boundary = B): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}${eol}${part.headers.map((h) => h + eol).join('')}${eol}`));
    chunks.push(typeof part.content === 'string' ? Buffer.from(part.content) : part.content);
    chunks.push(Buffer.from(eol));
  }
  chunks.push(Buffer.from(`--${boundary}--${eol}`));
  return Buffer.concat(chunks);
}

const field = (name: string, value: string) => ({ headers: [`Content-Disposition: form-data; name="${name}"`], content: value });
const file = (name: string, content: Buffer) => ({ headers: [`Content-Disposition: form-data; name="${name}"; filename="a.wav"`, 'Content-Type: audio/wav'], content });

describe('multipartBoundary', () => {
  it('reads a plain or quoted boundary parameter', () => {
    expect(multipartBoundary(`multipart/form-data; boundary=${B}`)).toBe(B);
    expect(multipartBoundary(`multipart/form-data; charset=utf-8; boundary="${B} x"`)).toBe(`${B} x`);
    expect(multipartBoundary(`Multipart/Form-Data;BOUNDARY=${B};foo=bar`)).toBe(B);
  });

  it('is null for other types, a missing boundary or one longer than 70 characters', () => {
    expect(multipartBoundary(undefined)).toBeNull();
    expect(multipartBoundary('application/json')).toBeNull();
    expect(multipartBoundary('multipart/form-data')).toBeNull();
    expect(multipartBoundary(`multipart/form-data; boundary=${'a'.repeat(71)}`)).toBeNull();
  });
});

describe('multipartField', () => {
  it('finds a field after a binary file part (CRLF line ends)', () => {
    const audio = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256));
    const raw = body([file('file', audio), field('model', 'whisper-small'), field('language', 'en')]);
    expect(multipartField(raw, B, 'model')).toBe('whisper-small');
    expect(multipartField(raw, B, 'language')).toBe('en');
  });

  it('finds a field before the file part, and with bare LF line ends', () => {
    const raw = body([field('model', 'stt-1'), file('file', Buffer.from('RIFF....'))], '\n');
    expect(multipartField(raw, B, 'model')).toBe('stt-1');
  });

  it('is null for a missing field, an empty body or another boundary', () => {
    const raw = body([file('file', Buffer.from('x')), field('language', 'en')]);
    expect(multipartField(raw, B, 'model')).toBeNull();
    expect(multipartField(Buffer.alloc(0), B, 'model')).toBeNull();
    expect(multipartField(body([field('model', 'm')]), 'other', 'model')).toBeNull();
  });

  it('matches the name exactly: not filename=, not a prefix, not another case', () => {
    const raw = body([
      { headers: ['Content-Disposition: form-data; name="file"; filename="model"'], content: 'bytes' },
      field('models', 'no'),
      field('Model', 'no'),
      field('model', 'yes'),
    ]);
    expect(multipartField(raw, B, 'model')).toBe('yes');
  });

  it('reads unquoted and escaped names, header names in any case, and extra headers', () => {
    const raw = body([
      { headers: ['content-disposition: form-data; name=prompt'], content: 'hello' },
      { headers: ['Content-Type: text/plain; charset=utf-8', 'CONTENT-DISPOSITION: form-data; name="a\\"b"'], content: 'quoted' },
      { headers: ['Content-Disposition: form-data ; name = "model" '], content: 'spaced' },
    ]);
    expect(multipartField(raw, B, 'prompt')).toBe('hello');
    expect(multipartField(raw, B, 'a"b')).toBe('quoted');
    expect(multipartField(raw, B, 'model')).toBe('spaced');
  });

  it('keeps the value as sent: empty, multi-line, UTF-8, and text that looks like a boundary mid-line', () => {
    const raw = body([field('empty', ''), field('lines', 'one\r\ntwo'), field('utf8', 'modèle-ü'), field('tricky', `x--${B}y`)]);
    expect(multipartField(raw, B, 'empty')).toBe('');
    expect(multipartField(raw, B, 'lines')).toBe('one\r\ntwo');
    expect(multipartField(raw, B, 'utf8')).toBe('modèle-ü');
    expect(multipartField(raw, B, 'tricky')).toBe(`x--${B}y`);
  });

  it('skips a preamble and allows transport padding after the boundary', () => {
    const raw = Buffer.concat([Buffer.from('This is a preamble.\r\n'), Buffer.from(`--${B}  \r\nContent-Disposition: form-data; name="model"\r\n\r\nm1\r\n--${B}--\r\n`)]);
    expect(multipartField(raw, B, 'model')).toBe('m1');
  });

  it('is null for a truncated body (no delimiter after the part) and ignores parts after the close delimiter', () => {
    const truncated = Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="model"\r\n\r\nm1`);
    expect(multipartField(truncated, B, 'model')).toBeNull();
    const epilogue = Buffer.from(`--${B}--\r\n--${B}\r\nContent-Disposition: form-data; name="model"\r\n\r\nlate\r\n--${B}--\r\n`);
    expect(multipartField(epilogue, B, 'model')).toBeNull();
  });

  it('reads what FormData serialises', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array([0, 1, 2, 255])], { type: 'audio/wav' }), 'clip.wav');
    form.append('model', 'svc/stt');
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    const boundary = multipartBoundary(request.headers.get('content-type') ?? undefined);
    expect(boundary).not.toBeNull();
    const raw = Buffer.from(await request.arrayBuffer());
    expect(multipartField(raw, boundary!, 'model')).toBe('svc/stt');
    expect(multipartField(raw, boundary!, 'file')).toBe(Buffer.from([0, 1, 2, 255]).toString('utf8'));
  });
});

describe('withMultipartField', () => {
  it('replaces one field\'s value and keeps every other byte, the file part included', () => {
    const audio = Buffer.from([0, 1, 2, 0x0d, 0x0a, 0x2d, 0x2d, 255]);
    const before = body([file('file', audio), field('model', 'pub'), field('language', 'en')]);
    const after = withMultipartField(before, B, 'model', 'org/whisper-large')!;
    expect(multipartField(after, B, 'model')).toBe('org/whisper-large');
    expect(multipartField(after, B, 'language')).toBe('en');
    expect(after.includes(audio)).toBe(true);
    expect(after.length - before.length).toBe('org/whisper-large'.length - 'pub'.length);
    expect(withMultipartField(before, B, 'prompt', 'x')).toBeNull();
  });
});
