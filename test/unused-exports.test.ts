// An exported name that nothing uses, not even its own file, is a reader's dead end: it looks
// like an API someone calls. This lists every `export const|function|type|…` of src/ and the
// dashboard whose name stands nowhere but in its own declaration (src, web, test, bench and
// scripts are searched, as words), and fails on any.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
const REPO_ROOT = join(import.meta.dirname, '..');

const DECLARATION = /^export\s+(?:declare\s+)?(?:async\s+)?(?:const|let|function\*?|type|interface|class|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm;
const WORD = /[A-Za-z_$][\w$]*/g;

function trackedSources(): string[] {
  const out = execFileSync('git', ['ls-files', 'src', 'web', 'test', 'bench', 'scripts'], { cwd: REPO_ROOT, encoding: 'utf8' });
  return out.split('\n').filter((file) => /\.(?:ts|tsx|js|mjs)$/.test(file));
}

/** `file: name` for each export whose name occurs once in the whole tree: at its declaration. */
function unusedExports(files: readonly string[], read: (file: string) => string): string[] {
  const counts = new Map<string, number>();
  const texts = new Map(files.map((file) => [file, read(file)]));
  for (const text of texts.values()) for (const [word] of text.matchAll(WORD)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const unused: string[] = [];
  for (const [file, text] of texts) {
    if (file.includes('.test.') || !(file.startsWith('src/') || file.startsWith('web/src/'))) continue;
    for (const match of text.matchAll(DECLARATION)) if (counts.get(match[1]!) === 1) unused.push(`${file}: ${match[1]}`);
  }
  return unused;
}

describe('exports', () => {
  it('the check finds an export nobody uses, and not one that is used', () => {
    const files = { 'src/a.ts': 'export const used = 1;\nexport type Lonely = string;\n', 'src/b.ts': 'import { used } from "./a.js";\n' };
    expect(unusedExports(Object.keys(files), (file) => files[file as keyof typeof files])).toEqual(['src/a.ts: Lonely']);
  });

  it('every exported name of src/ and web/src/ is used somewhere', () => {
    expect(unusedExports(trackedSources(), (file) => readFileSync(join(REPO_ROOT, file), 'utf8'))).toEqual([]);
  });
});
