// docs/configuration.md carries the svc.toml reference generated from the schema; this
// fails when the committed copy no longer matches what the schema says.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolvePaths } from './paths.js';
import { describeSettings } from './settings.js';
import { extractGeneratedBlock, renderSettingsReference, replaceGeneratedBlock } from './settings-docs.js';

const DOC = new URL('../../docs/configuration.md', import.meta.url);
const REGENERATE = 'docs/configuration.md is out of date with the svc.toml schema: run `npm run build && node scripts/gen-config-docs.mjs`';

// A system install: models.roots defaults to /var/lib/svc/models, as the docs say.
const systemPaths = resolvePaths({ env: {}, isRoot: true, homeDir: '/root', exists: () => true });

describe('docs/configuration.md', () => {
  const descriptions = describeSettings(systemPaths);
  const rendered = renderSettingsReference(descriptions);

  it('has the generated svc.toml reference, matching the schema', () => {
    const block = extractGeneratedBlock(readFileSync(DOC, 'utf8'));
    expect(block, 'the <!-- BEGIN/END GENERATED: svc.toml --> markers are missing').toBeDefined();
    expect(block, REGENERATE).toBe(rendered);
  });

  it('renders every key svc reads in the table of its section', () => {
    expect(systemPaths.defaultModelsDir).toBe('/var/lib/svc/models');
    for (const d of descriptions.filter((key) => !key.unread)) {
      const name = d.key.slice(d.section.length + 1);
      expect(rendered).toContain(`#### \`[${d.section}]\``);
      expect(rendered.match(new RegExp(`^\\| \`${name}\` \\|`, 'gm'))?.length ?? 0).toBeGreaterThanOrEqual(1);
    }
    expect(rendered).toContain('| `max_rows` | integer or null | `50000` | >= 100 |');
    expect(rendered).toContain('| `channel` | one of `stable`, `nightly` | `"stable"` |');
    expect(rendered).toContain('| `prefetch_timeout_s` | number | `8.0` | > 0 |');
  });

  it('names the keys nothing reads yet in one line instead of documenting them as features (issue 22)', () => {
    const unread = descriptions.filter((d) => d.unread).map((d) => d.key);
    expect(unread).toContain('telemetry.enabled');
    expect(unread).not.toContain('memory.graph.extraction_slot');
    // The update channel is read (svc update, /api/updates): it keeps its row, under [updates] since schema_version 3.
    expect(unread).not.toContain('updates.channel');
    // Memory is read since issue 27 (the graph too), but for the gateway URL (the rerank is in process).
    expect(rendered).toContain('Accepted and validated, not read yet: `[telemetry]`, `[memory.embedding].rerank_gateway_url`.');
    expect(rendered).not.toContain('Opt-in anonymous telemetry');
    expect(rendered).toMatch(/^#### `\[memory\]`/m);
    expect(rendered).not.toMatch(/^#### `\[telemetry\]`/m);
    expect(rendered).toMatch(/^#### `\[updates\]`[^#]*\| `channel` \|/m);
  });

  it('replaces only the text between the markers', () => {
    const doc = 'intro\n<!-- BEGIN GENERATED: svc.toml -->\nold\n<!-- END GENERATED: svc.toml -->\noutro\n';
    const next = replaceGeneratedBlock(doc, 'new\n');
    expect(next).toBe('intro\n<!-- BEGIN GENERATED: svc.toml -->\nnew\n<!-- END GENERATED: svc.toml -->\noutro\n');
    expect(extractGeneratedBlock(next)).toBe('new\n');
    expect(() => replaceGeneratedBlock('no markers', 'x')).toThrow(/markers/);
  });
});
