import { describe, expect, it } from 'vitest';
import { cacheFolderName, parsePullRef, pullModelId, safeRepoPath } from './pull-ref.js';

describe('parsePullRef', () => {
  it('reads every ref form', () => {
    expect(parsePullRef('Qwen/Qwen3-0.6B-GGUF:Q4_K_M')).toEqual({ kind: 'hf', repo: 'Qwen/Qwen3-0.6B-GGUF', quant: 'Q4_K_M' });
    expect(parsePullRef('Qwen/Qwen3-0.6B-GGUF')).toEqual({ kind: 'hf', repo: 'Qwen/Qwen3-0.6B-GGUF' });
    expect(parsePullRef('org/repo/sub/model-q8_0.gguf')).toEqual({ kind: 'hf', repo: 'org/repo', file: 'sub/model-q8_0.gguf' });
    expect(parsePullRef('hf://org/repo/model.gguf')).toEqual({ kind: 'hf', repo: 'org/repo', file: 'model.gguf' });
    expect(parsePullRef('hf.co/org/repo:Q8_0')).toEqual({ kind: 'hf', repo: 'org/repo', quant: 'Q8_0' });
    expect(parsePullRef('org/repo@v1.0:Q8_0')).toEqual({ kind: 'hf', repo: 'org/repo', quant: 'Q8_0', revision: 'v1.0' });
    expect(parsePullRef('org/repo@abc123')).toEqual({ kind: 'hf', repo: 'org/repo', revision: 'abc123' });
    expect(parsePullRef('https://example.com/files/tiny.gguf')).toEqual({ kind: 'url', url: 'https://example.com/files/tiny.gguf' });
    expect(parsePullRef('qwen3-0.6b')).toEqual({ kind: 'name', name: 'qwen3-0.6b' });
  });

  it('refuses what cannot be a ref, and paths that would leave the repo', () => {
    for (const bad of ['', 'org/../x', 'org/repo/../../etc/passwd', 'org/repo//x.gguf', '../x/y', 'org/repo:bad tag', 'a b']) {
      expect(parsePullRef(bad)).toHaveProperty('error');
    }
    expect(safeRepoPath('a/b.gguf')).toBe(true);
    for (const bad of ['/a', 'a/../b', './a', 'a\\b', 'a//b', '']) expect(safeRepoPath(bad)).toBe(false);
  });
});

describe('pullModelId', () => {
  const id = (ref: string) => pullModelId(parsePullRef(ref) as never);
  it('names a pull after the repo and quant, a file or URL after its stem', () => {
    expect(id('Qwen/Qwen3-0.6B-GGUF:Q4_K_M')).toBe('qwen3-0.6b-q4_k_m');
    expect(id('Qwen/Qwen3-0.6B-GGUF')).toBe('qwen3-0.6b');
    expect(id('org/repo/sub/Model-Q8_0-00001-of-00003.gguf')).toBe('model-q8_0');
    expect(id('https://example.com/a/Tiny.Q2_K.gguf')).toBe('tiny.q2_k');
    expect(id('qwen3-0.6b')).toBe('qwen3-0.6b');
  });
  it('puts a repo in the Hugging Face cache folder', () => {
    expect(cacheFolderName('org/repo')).toBe('models--org--repo');
  });
});
