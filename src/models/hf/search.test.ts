import { describe, expect, it } from 'vitest';
import type { RepoFile } from './pick.js';
import { searchRepos } from './search.js';

const file = (path: string, size = 1): RepoFile => ({ path, size, sha256: null, gitOid: '0' });

describe('searchRepos', () => {
  it('lists the quants of the first ten results only, and none for a repo whose tree fails', async () => {
    const repos = Array.from({ length: 12 }, (_, i) => ({ id: `org/r${i}`, downloads: 100 - i, likes: i }));
    const listed: string[] = [];
    const hub = {
      search: async (_text: string, limit: number) => repos.slice(0, limit),
      commit: async (repo: string) => {
        if (repo === 'org/r1') throw new Error('403');
        return `sha-${repo}`;
      },
      tree: async (repo: string) => {
        listed.push(repo);
        return [file('model-Q4_K_M.gguf', 4), file('model-Q8_0.gguf', 8), file('mmproj-F16.gguf'), file('README.md')];
      },
    };
    const results = await searchRepos(hub, 'qwen', 12);
    expect(results).toHaveLength(12);
    expect(results[0]).toEqual({ repo: 'org/r0', downloads: 100, likes: 0, quants: [{ quant: 'Q4_K_M', file: 'model-Q4_K_M.gguf', size: 4 }, { quant: 'Q8_0', file: 'model-Q8_0.gguf', size: 8 }] });
    expect(results[1]!.quants).toEqual([]);
    expect(results[11]).toEqual({ repo: 'org/r11', downloads: 89, likes: 11, quants: [] });
    expect(listed).toHaveLength(9);
    expect(listed).not.toContain('org/r10');
  });
});
