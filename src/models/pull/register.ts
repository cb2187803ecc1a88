// A finished pull in the registry: the snapshot symlinks and refs/<revision> of the cache
// layout, then the entry (created or refreshed) with what the pull learnt: the repo, file,
// commit, SHA-256, quant, architecture, native context and an `mtp` tag.
import type { SvcPaths } from '../../config/paths.js';
import type { RegistryFile } from '../../config/schema/registry.js';
import type { TomlDoc } from '../../config/toml.js';
import type { PullPlanPayload } from '../../protocol/pulls.js';
import { modelsTable, putEntry, readRegistry, writeRegistry } from '../store.js';
import { linkSnapshot, repoLayout, writeRef } from './layout.js';

export async function linkPulledFiles(plan: PullPlanPayload): Promise<void> {
  for (const file of plan.files) if (file.link !== file.target) await linkSnapshot(file.link, file.target);
  if (plan.repo && plan.commit && plan.revision) await writeRef(repoLayout(plan.store, plan.repo), plan.revision, plan.commit);
}

/** Write the entry for a pulled model; the caller holds the one-writer queue. */
export async function registerPulled(paths: SvcPaths, plan: PullPlanPayload, sha256: string | null): Promise<RegistryFile> {
  const { doc } = await readRegistry(paths);
  const model = plan.files.filter((f) => f.role !== 'mmproj');
  putEntry(doc, plan.model_id, {
    path: plan.path,
    files: plan.parts,
    size_bytes: model.reduce((sum, f) => sum + f.size, 0),
    source: 'pull',
    tags: plan.mtp ? ['mtp'] : [],
    mmproj: plan.mmproj,
    context_length: plan.context_length,
  });
  const entry = modelsTable(doc)[plan.model_id] as TomlDoc;
  if (plan.repo) {
    entry.hf_repo = plan.repo;
    entry.hf_filename = model[0]!.path;
  }
  if (plan.capabilities) entry.capabilities = [...plan.capabilities];
  const metadata = { ...((entry.metadata as TomlDoc | undefined) ?? {}) };
  for (const [key, value] of Object.entries({ sha256, commit: plan.commit, architecture: plan.architecture, quant: plan.quant })) {
    if (value !== null) metadata[key] = value;
  }
  entry.metadata = metadata;
  if (plan.profile) entry.defaults = { ...((entry.defaults as TomlDoc | undefined) ?? {}), profile: plan.profile };
  return writeRegistry(paths, doc);
}
