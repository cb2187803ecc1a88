// memory calls models through the dispatcher's one entry (dispatch/result.ts), not through
// the omni loop's code: no file of src/memory imports src/omni.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('src/memory', () => {
  it('imports nothing of src/omni', () => {
    const files = sources(join(import.meta.dirname));
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.filter((file) => /from '(\.\.\/)+omni\//.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
