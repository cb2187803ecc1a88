import { describe, expect, it } from 'vitest';
import { pickFiles, quantOf, type RepoFile } from './pick.js';

const file = (path: string): RepoFile => ({ path, size: 1, sha256: 'a'.repeat(64), gitOid: 'b'.repeat(40) });
const repo = (...paths: string[]) => paths.map(file);
const picked = (files: RepoFile[], wanted: { quant?: string; file?: string }) => {
  const result = pickFiles(files, wanted);
  if ('error' in result) return result.error;
  return { files: result.files.map((f) => f.path), mmproj: result.mmproj?.path ?? null, quant: result.quant };
};

describe('the quant pick (as llama.cpp picks)', () => {
  const files = repo('README.md', 'm-Q2_K.gguf', 'm-Q4_K_M.gguf', 'm-Q8_0.gguf', 'm-imatrix.gguf', 'mmproj-m-f16.gguf', 'mmproj-m-Q8_0.gguf', 'mtp-m-Q4_K_M.gguf');

  it('matches the tag as TAG[.-], ignoring case', () => {
    expect(picked(files, { quant: 'q8_0' })).toEqual({ files: ['m-Q8_0.gguf'], mmproj: 'mmproj-m-Q8_0.gguf', quant: 'Q8_0' });
    expect(picked(files, { quant: 'Q2_K' })).toMatchObject({ files: ['m-Q2_K.gguf'] });
    expect(picked(files, { quant: 'Q5_K_M' })).toMatch(/no GGUF in the repo matches the quant Q5_K_M/);
  });

  it('without a tag takes Q4_K_M, then Q8_0, then the first GGUF', () => {
    expect(picked(files, {})).toMatchObject({ files: ['m-Q4_K_M.gguf'], quant: 'Q4_K_M' });
    expect(picked(repo('m-Q2_K.gguf', 'm-Q8_0.gguf'), {})).toMatchObject({ files: ['m-Q8_0.gguf'] });
    expect(picked(repo('b-F16.gguf', 'a-Q3_K_S.gguf'), {})).toMatchObject({ files: ['b-F16.gguf'], quant: 'F16' });
    expect(picked(repo('README.md', 'mmproj-x.gguf', 'm-imatrix.gguf'), {})).toMatch(/no GGUF model file/);
  });

  it('fetches every part of a split model, and refuses a repo that lacks one', () => {
    const split = repo('Q4_K_M/m-Q4_K_M-00002-of-00003.gguf', 'Q4_K_M/m-Q4_K_M-00001-of-00003.gguf', 'Q4_K_M/m-Q4_K_M-00003-of-00003.gguf');
    expect(picked(split, { quant: 'Q4_K_M' })).toMatchObject({ files: ['Q4_K_M/m-Q4_K_M-00001-of-00003.gguf', 'Q4_K_M/m-Q4_K_M-00002-of-00003.gguf', 'Q4_K_M/m-Q4_K_M-00003-of-00003.gguf'] });
    expect(picked(split.slice(0, 2), { quant: 'Q4_K_M' })).toMatch(/missing part 3 of 3/);
    expect(picked(split, { file: 'Q4_K_M/m-Q4_K_M-00002-of-00003.gguf' })).toMatch(/part 2 of 3/);
  });

  it('takes the mmproj from the deepest shared folder, closest in bits', () => {
    const vision = repo('mmproj-F16.gguf', 'v/m-Q4_K_M.gguf', 'v/mmproj-Q8_0.gguf', 'v/mmproj-F16.gguf');
    expect(picked(vision, {})).toMatchObject({ files: ['v/m-Q4_K_M.gguf'], mmproj: 'v/mmproj-Q8_0.gguf' });
  });

  it('takes a named file as it is', () => {
    expect(picked(files, { file: 'm-Q2_K.gguf' })).toMatchObject({ files: ['m-Q2_K.gguf'] });
    expect(picked(files, { file: 'nope.gguf' })).toMatch(/no file nope.gguf/);
  });

  it('reads the quant off a file name', () => {
    expect(['a-Q4_K_M.gguf', 'a.IQ2_XS.gguf', 'a-bf16.gguf', 'a-f32-00001-of-00002.gguf', 'plain.gguf'].map(quantOf)).toEqual(['Q4_K_M', 'IQ2_XS', 'BF16', 'F32', null]);
  });
});
