// GET /api/models/search: GGUF repos matching a text, the first few with the quants they
// offer and their sizes, so that a client can pick `org/repo:quant` without another call.
import type { SearchResultPayload } from '../../protocol/pulls.js';
import type { Hub } from './hub.js';
import { candidates, quantOf } from './pick.js';

/** Results that get their quants (one commit and one tree listing each); the rest list none. */
const SEARCH_DETAILS = 10;

export async function searchRepos(hub: Pick<Hub, 'search' | 'commit' | 'tree'>, text: string, limit: number): Promise<SearchResultPayload[]> {
  const found = await hub.search(text, limit);
  return Promise.all(found.map(async (repo, index): Promise<SearchResultPayload> => {
    if (index >= SEARCH_DETAILS) return { repo: repo.id, downloads: repo.downloads, likes: repo.likes, quants: [] };
    // A repo whose tree cannot be listed is still a result, with no quants.
    const files = await hub.commit(repo.id).then((commit) => hub.tree(repo.id, commit)).catch(() => []);
    return { repo: repo.id, downloads: repo.downloads, likes: repo.likes, quants: candidates(files).map((f) => ({ quant: quantOf(f.path), file: f.path, size: f.size })) };
  }));
}
