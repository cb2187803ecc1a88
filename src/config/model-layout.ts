// `svc migrate model-layout`: give models kept under an old mount root a place in the
// canonical layout, `<canonical>/<recipe>/<capability>/<file>`, by symbolic link. Nothing is
// moved or copied. The plan is a pure function of the registry and what each link path holds
// now; applying it only creates (or, forced, replaces) links.
import { lstat, mkdir, readlink, rm, symlink } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { RegistryFile } from './schema/registry.js';

export type LayoutAction = 'create' | 'skip-exists' | 'would-overwrite' | 'overwrite' | 'unclassified';

export interface LayoutStep {
  readonly model: string;
  readonly action: LayoutAction;
  /** The link to create (null when unclassified). */
  readonly link: string | null;
  readonly target: string;
  readonly reason: string;
}

/** What a link path holds now: nothing, a link to somewhere, or something that is not a link. */
export type LinkState = { kind: 'missing' } | { kind: 'link'; target: string } | { kind: 'other' };

const under = (root: string, path: string) => {
  const rel = relative(resolve(root), resolve(path));
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep);
};

/** The recipe and capability folders a model belongs in, or why it has none. */
export function classify(path: string, capabilities: readonly string[]): { folder: string } | { reason: string } {
  if (/(^|\/)models--[^/]+--/.test(path)) return { reason: 'in a Hugging Face cache (shared as it is; never relinked)' };
  const lower = path.toLowerCase();
  if (capabilities.includes('stt')) return { folder: 'whispercpp/stt' };
  if (capabilities.includes('tts')) return { folder: 'kokoro/tts' };
  if (capabilities.includes('image')) return { folder: 'sd-cpp/img' };
  if (!lower.endsWith('.gguf')) return { reason: 'not a GGUF, and no stt, tts or image capability says where it goes' };
  if (capabilities.includes('embed')) return { folder: 'llamacpp/embed' };
  if (capabilities.includes('rerank')) return { folder: 'llamacpp/rerank' };
  return { folder: 'llamacpp/chat' };
}

export function planModelLayout(registry: RegistryFile, roots: { mount: string; canonical: string }, force: boolean, linkState: (link: string) => LinkState): LayoutStep[] {
  const steps: LayoutStep[] = [];
  for (const [model, entry] of Object.entries(registry.models).sort(([a], [b]) => a.localeCompare(b))) {
    if (!under(roots.mount, entry.path)) continue;
    const place = classify(entry.path, entry.capabilities);
    if ('reason' in place) {
      steps.push({ model, action: 'unclassified', link: null, target: entry.path, reason: place.reason });
      continue;
    }
    for (const target of [entry.path, ...entry.files, ...(entry.mmproj ? [entry.mmproj] : [])]) {
      const link = join(roots.canonical, place.folder, basename(target));
      const now = linkState(link);
      if (now.kind === 'missing') steps.push({ model, action: 'create', link, target, reason: '' });
      else if (now.kind === 'link' && resolve(dirname(link), now.target) === resolve(target)) steps.push({ model, action: 'skip-exists', link, target, reason: 'the link is there' });
      else if (now.kind === 'other') steps.push({ model, action: 'would-overwrite', link, target, reason: 'a file that is not a link is there (never replaced)' });
      else steps.push({ model, action: force ? 'overwrite' : 'would-overwrite', link, target, reason: `now points to ${now.target}` });
    }
  }
  return steps;
}

export async function linkStates(steps: readonly string[]): Promise<Map<string, LinkState>> {
  const states = new Map<string, LinkState>();
  for (const link of steps) {
    const info = await lstat(link).catch(() => undefined);
    states.set(link, !info ? { kind: 'missing' } : info.isSymbolicLink() ? { kind: 'link', target: await readlink(link) } : { kind: 'other' });
  }
  return states;
}

/** Carry out create and overwrite steps; a non-link in the way is never removed. */
export async function applyModelLayout(steps: readonly LayoutStep[]): Promise<number> {
  let done = 0;
  for (const step of steps) {
    if (!step.link || (step.action !== 'create' && step.action !== 'overwrite')) continue;
    await mkdir(dirname(step.link), { recursive: true });
    if (step.action === 'overwrite') await rm(step.link, { force: true });
    await symlink(step.target, step.link);
    done++;
  }
  return done;
}
