// A throwaway svc home whose registry holds the project's tiny model as "tiny": what the
// benches that start their own gateway on the built-in engine need. Run after npm run build.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function tinyModelHome(prefix) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const { writeTinyModel } = await import('../../dist/engines/gguf/tiny-model.js');
  const model = join(root, 'tiny.gguf');
  await writeTinyModel(model);
  mkdirSync(join(root, 'var/lib/svc/registry'), { recursive: true });
  writeFileSync(join(root, 'var/lib/svc/registry/registry.toml'), `[models.tiny]\npath = ${JSON.stringify(model)}\n`);
  return root;
}
