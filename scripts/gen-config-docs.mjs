#!/usr/bin/env node
// Regenerate the svc.toml reference in docs/configuration.md from the schema.
// Run after `npm run build` (it reads dist/): `node scripts/gen-config-docs.mjs`.
// src/config/docs.test.ts fails when the committed block is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { describeSettings } = await import('../dist/config/settings.js');
const { renderSettingsReference, replaceGeneratedBlock } = await import('../dist/config/settings-docs.js');

// Defaults as a system install sees them: models.roots defaults to <state root>/models.
const paths = { defaultModelsDir: '/var/lib/svc/models' };
const docPath = join(root, 'docs/configuration.md');
const before = readFileSync(docPath, 'utf8');
const after = replaceGeneratedBlock(before, renderSettingsReference(describeSettings(paths)));
if (after === before) {
  console.log('docs/configuration.md: svc.toml reference already up to date');
} else {
  writeFileSync(docPath, after);
  console.log('docs/configuration.md: svc.toml reference regenerated');
}
