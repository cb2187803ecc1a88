// Registry backups: `svc registry export` writes registry.toml into a .tar.gz, and
// `svc registry import` restores it from one (ours, or the original's backup layout). The
// archive is read in memory and never extracted: only the registry.toml entry is taken, and
// only after the whole archive passed the tar reader's refusals (links, devices, absolute
// paths, ".."). The restored file is validated before it is written, atomically.
import { readFile, stat } from 'node:fs/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ModelError } from '../protocol/errors.js';
import { writeFileAtomic } from './atomic.js';
import { errorsOf, formatProblem } from './problems.js';
import { RegistryFileSchema } from './schema/registry.js';
import { readTar, TarError, writeTar } from '../lib/tar.js';
import { parseToml } from './toml.js';
import { validateDocument } from './validate.js';

/** Where a backup may hold registry.toml, looked up in this order. */
export const REGISTRY_IN_BACKUP = ['var/lib/svc/registry/registry.toml', 'registry/registry.toml', 'registry.toml'] as const;

function invalid(message: string, details: Record<string, unknown> = {}): ModelError {
  return new ModelError('model.backup_invalid', message, details);
}

/** The registry's entries, validated; the text as it is. */
function checkRegistry(text: string, label: string): { models: number } {
  const parsed = parseToml(text, label);
  if ('problem' in parsed) throw invalid(`${label} is not valid TOML: ${formatProblem(parsed.problem)}`);
  const result = validateDocument(RegistryFileSchema, parsed.doc, label);
  const errors = errorsOf(result.problems);
  if (!result.value || errors.length > 0) throw invalid(`${label} is not a valid registry: ${errors.map(formatProblem).join('; ')}`, { problems: errors.map(({ file, path, message }) => ({ file, path, message })) });
  return { models: Object.keys(result.value.models).length };
}

export async function exportRegistry(registryToml: string, tarball: string): Promise<{ models: number; bytes: number }> {
  const text = await readFile(registryToml, 'utf8').catch(() => {
    throw invalid(`there is no registry to export at ${registryToml}`, { path: registryToml });
  });
  const { models } = checkRegistry(text, registryToml);
  const archive = gzipSync(writeTar([{ path: 'registry/registry.toml', data: Buffer.from(text), mode: 0o644 }]));
  await writeFileAtomic(tarball, archive, { mode: 0o600 });
  return { models, bytes: archive.length };
}

export async function importRegistry(tarball: string, dest: string, force: boolean): Promise<{ models: number; from: string; replaced: boolean }> {
  const raw = await readFile(tarball).catch((error: NodeJS.ErrnoException) => {
    throw invalid(`cannot read ${tarball}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`, { path: tarball });
  });
  let entries;
  try {
    entries = readTar(raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw);
  } catch (error) {
    throw invalid(`${tarball}: ${error instanceof TarError ? error.message : `not a gzip or tar archive (${(error as Error).message})`}`, { path: tarball });
  }
  const files = new Map(entries.filter((e) => e.type === 'file').map((e) => [e.path, e.data]));
  const from = REGISTRY_IN_BACKUP.find((path) => files.has(path));
  if (!from) throw invalid(`${tarball} holds no registry.toml (looked for ${REGISTRY_IN_BACKUP.join(', ')})`, { path: tarball });
  const text = files.get(from)!.toString('utf8');
  const { models } = checkRegistry(text, `${tarball}:${from}`);
  const replaced = Boolean(await stat(dest).catch(() => undefined));
  if (replaced && !force) throw new ModelError('model.backup_exists', `${dest} exists; pass --force to replace it with the backup's registry (${models} model(s))`, { path: dest });
  await writeFileAtomic(dest, text);
  return { models, from, replaced };
}
