// What `svc model pull <ref>` names, parsed without any network: a Hugging Face repo with an
// optional quant tag or file, an hf:// URL, a direct https:// URL, or a bare name (a
// registry id or a catalogue entry). Pure and in protocol/, so the CLI and the server agree on ids.
import { MODEL_ID_PATTERN, SPLIT_PART_PATTERN, idFromStem } from './model-ids.js';

export type PullRef =
  | { readonly kind: 'hf'; readonly repo: string; readonly quant?: string; readonly file?: string; readonly revision?: string }
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'name'; readonly name: string };

const REPO_PART = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;
const QUANT = /^[A-Za-z0-9_.-]{1,40}$/;

/** The ref's parts, or a message saying what is wrong with it. */
export function parsePullRef(input: string): PullRef | { readonly error: string } {
  const ref = input.trim();
  if (ref === '') return { error: 'the ref is empty' };
  if (/^https?:\/\//i.test(ref)) {
    let url: URL;
    try {
      url = new URL(ref);
    } catch {
      return { error: `${JSON.stringify(ref)} is not a valid URL` };
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return { error: 'only http(s) URLs can be pulled' };
    return { kind: 'url', url: url.toString() };
  }
  const rest = ref.replace(/^hf:\/\//i, '').replace(/^hf\.co\//i, '').replace(/^huggingface\.co\//i, '');
  if (!rest.includes('/')) return MODEL_ID_PATTERN.test(rest) ? { kind: 'name', name: rest } : { error: `${JSON.stringify(ref)} is neither org/repo nor a model id` };
  const [org, repoAndTag, ...path] = rest.split('/');
  let repoName = repoAndTag ?? '';
  let revision: string | undefined;
  let quant: string | undefined;
  if (path.length === 0) {
    const colon = repoName.indexOf(':');
    if (colon >= 0) [repoName, quant] = [repoName.slice(0, colon), repoName.slice(colon + 1)];
  }
  const at = repoName.indexOf('@');
  if (at >= 0) [repoName, revision] = [repoName.slice(0, at), repoName.slice(at + 1)];
  if (!REPO_PART.test(org ?? '') || !REPO_PART.test(repoName)) return { error: `${JSON.stringify(ref)}: expected org/repo with letters, digits, ".", "_" and "-"` };
  if (quant !== undefined && !QUANT.test(quant)) return { error: `${JSON.stringify(ref)}: the quant tag after ":" is not valid` };
  if (revision !== undefined && !/^[A-Za-z0-9._/-]{1,100}$/.test(revision)) return { error: `${JSON.stringify(ref)}: the revision after "@" is not valid` };
  const file = path.join('/');
  if (path.length > 0 && !safeRepoPath(file)) return { error: `${JSON.stringify(ref)}: the file path must stay inside the repo (no "..", no empty parts)` };
  return { kind: 'hf', repo: `${org}/${repoName}`, ...(quant && { quant }), ...(file && { file }), ...(revision && { revision }) };
}

/** A relative path with no empty, "." or ".." part and no backslash: it cannot leave the folder it is joined to. */
export function safeRepoPath(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.includes('\\') || path.includes('\0')) return false;
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

/**
 * The registry id a pull of `ref` creates when none is given: the repo's name without a
 * trailing -GGUF, plus the quant tag; a file's or URL's stem; a bare name as it is.
 */
export function pullModelId(ref: PullRef): string {
  if (ref.kind === 'name') return ref.name;
  if (ref.kind === 'url') return idFromStem(stemOf(decodeURIComponent(new URL(ref.url).pathname.split('/').pop() ?? '')));
  if (ref.file) return idFromStem(stemOf(ref.file.split('/').pop()!));
  const base = ref.repo.split('/')[1]!.replace(/[-_.]gguf$/i, '');
  return idFromStem(`${base}${ref.quant ? `-${ref.quant}` : ''}`);
}

/** A file name without its extension and split-part suffix. */
function stemOf(name: string): string {
  const split = SPLIT_PART_PATTERN.exec(name);
  if (split) return split[1]!;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

/** `org/repo` as the cache folder name Hugging Face tools use: `models--org--repo`. */
export function cacheFolderName(repo: string): string {
  return `models--${repo.split('/').join('--')}`;
}
