// docs/development.md opens with the layer map; eslint.config.js enforces it. This fails when
// the two disagree (a layer added, moved or given other imports in one and not the other), or
// when a folder of src/ has no row.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/gateway.js';

interface LayerConfig {
  LAYERS: string[];
  CLI_MAY_IMPORT: string[];
  WEB_MAY_IMPORT: string[];
  mayImport(layer: string): string[];
}

/** Outside the map: the executables, and the dashboard built on its own. */
const OUTSIDE = ['bin', 'web'];

interface Row {
  folder: string;
  mayImport: string;
}

function mapRows(): Row[] {
  const doc = readFileSync(join(REPO_ROOT, 'docs/development.md'), 'utf8');
  const section = doc.split(/^## /m).find((part) => part.startsWith('The layer map\n'));
  expect(section, 'docs/development.md has no "## The layer map" section').toBeDefined();
  return [...section!.matchAll(/^\| `([a-z]+)` \|.*\| ([^|]+) \|$/gm)].map((m) => ({ folder: m[1]!, mayImport: m[2]!.trim() }));
}

const names = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** The doc's "may import" column as a list: "nothing of `src/`", "every layer below [but …]", "only …". */
function documentedImports(row: Row, below: string[]): string[] {
  if (row.mayImport === 'nothing of `src/`') return [];
  if (row.mayImport.startsWith('only ')) return names(row.mayImport);
  const but = /^every layer below(?: but (.+))?$/.exec(row.mayImport);
  expect(but, `${row.folder}: cannot read "${row.mayImport}"`).not.toBeNull();
  const except = but![1] ? names(but![1]) : [];
  return below.filter((layer) => !except.includes(layer));
}

describe('the layer map', async () => {
  const config = (await import(new URL('../eslint.config.js', import.meta.url).href)) as LayerConfig;
  const rows = mapRows();

  it('lists the layers bottom to top in the order eslint.config.js enforces', () => {
    expect(rows.map((r) => r.folder).filter((f) => !OUTSIDE.includes(f))).toEqual(config.LAYERS);
  });

  it('gives each layer the imports the lint rule allows', () => {
    for (const row of rows.filter((r) => !OUTSIDE.includes(r.folder))) {
      const below = config.LAYERS.slice(0, config.LAYERS.indexOf(row.folder));
      expect(documentedImports(row, below), row.folder).toEqual(config.mayImport(row.folder));
    }
    expect(config.mayImport('cli')).toEqual(config.CLI_MAY_IMPORT);
  });

  it('gives the dashboard the part of src/ the lint rule allows it', () => {
    const web = rows.find((r) => r.folder === 'web');
    expect(web && names(web.mayImport)).toEqual(config.WEB_MAY_IMPORT);
  });

  it('has a row for every folder of src/', () => {
    const folders = readdirSync(join(REPO_ROOT, 'src')).filter((name) => statSync(join(REPO_ROOT, 'src', name)).isDirectory());
    // The `web` row is the dashboard (web/ beside src/), not a folder of src/.
    expect(rows.map((r) => r.folder).filter((folder) => folder !== 'web').sort()).toEqual(folders.sort());
  });
});
