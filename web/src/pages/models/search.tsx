// Hugging Face search (GET /api/models/search): GGUF repos with their quants, each quant's
// size and a fit mark (its size against this host's free RAM plus VRAM), and a pull.
import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { SearchResultPayload } from '../../../../src/protocol/pulls.js';
import { ErrorNote } from '../../components/error-note.js';
import { hardwareQuery } from '../../queries.js';
import { searchQuery } from './queries.js';
import { budgetMb, fitMark, formatBytes, refForQuant, type FitMark } from './pull-math.js';
import { StartPull } from './start-pull.js';
import { DataTable } from '../../components/data-table.js';

const FIT_WORDS: Record<FitMark, string> = { fits: 'fits', tight: 'tight', 'too-big': 'too big', unknown: '?' };

function FitBadge({ size, budget }: { size: number; budget: number | null }) {
  const { mark, needMb } = fitMark(size, budget);
  const why =
    budget === null
      ? 'the host is not known yet'
      : `needs about ${needMb} MiB before the KV cache; ${budget} MiB free (RAM + VRAM). The pull checks again with the context counted.`;
  return (
    <span className={`fit fit-${mark}`} title={why} data-testid="fit">
      {FIT_WORDS[mark]}
    </span>
  );
}

function Result({ result, budget, onPull }: { result: SearchResultPayload; budget: number | null; onPull: (ref: string) => void }) {
  return (
    <article className="search-result" data-testid={`result-${result.repo}`}>
      <h3>
        {result.repo} <span className="muted">· {result.downloads.toLocaleString()} downloads · {result.likes} likes</span>
      </h3>
      {result.quants.length === 0 ? (
        <p className="muted">No quants listed for this repo.</p>
      ) : (
        <DataTable columns={['quant', 'file', 'size', 'fit', { hidden: 'pull' }]}>
          {result.quants.map((quant) => (
            <tr key={quant.file} data-testid={`quant-${quant.quant ?? quant.file}`}>
              <td>{quant.quant ?? '—'}</td>
              <td>
                <code>{quant.file}</code>
              </td>
              <td>{formatBytes(quant.size)}</td>
              <td>
                <FitBadge size={quant.size} budget={budget} />
              </td>
              <td>
                <button type="button" onClick={() => onPull(refForQuant(result.repo, quant))} aria-label={`pull ${quant.quant ?? quant.file} of ${result.repo}`}>
                  Pull…
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </article>
  );
}

export function HubSearch() {
  const [text, setText] = useState('');
  const [searched, setSearched] = useState('');
  const [chosen, setChosen] = useState<string | null>(null);
  const search = useQuery(searchQuery(searched));
  const hardware = useQuery(hardwareQuery);
  const budget = budgetMb(hardware.data);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSearched(text.trim());
  };
  return (
    <section className="card" aria-labelledby="search-title" data-testid="search">
      <h2 id="search-title">Hugging Face</h2>
      <form className="toolbar" onSubmit={submit} role="search">
        <label htmlFor="hub-search">Search GGUF repos</label>
        <input id="hub-search" type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="qwen3" data-testid="search-text" />
        <button type="submit" className="primary" disabled={text.trim() === ''}>
          Search
        </button>
      </form>
      <StartPull initialRef={chosen} onDone={() => setChosen(null)} key={chosen ?? ''} />
      {search.error && <ErrorNote error={search.error} />}
      {search.isFetching && <p className="muted">Searching…</p>}
      {search.data && search.data.results.length === 0 && <p className="muted">Nothing found for “{search.data.query}”.</p>}
      {search.data?.results.map((result) => (
        <Result key={result.repo} result={result} budget={budget} onPull={setChosen} />
      ))}
    </section>
  );
}
