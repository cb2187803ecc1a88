// Search (hybrid, scored) or recall (reranked, within a budget) as the dashboard's agent; each
// result with its score, tags and bank, and a Delete that shows the item before it goes.
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { MemoryItem } from '../../../../src/protocol/memory.js';
import { Confirm } from '../../components/confirm.js';
import { ErrorNote } from '../../components/error-note.js';
import { memoryApi } from './memory-api.js';

type Mode = 'search' | 'recall';

export function SearchPanel({ canRead, canDelete, why }: { canRead: boolean; canDelete: boolean; why: string | undefined }) {
  const client = useQueryClient();
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState<Mode>('search');
  const [doomed, setDoomed] = useState<MemoryItem | null>(null);
  const run = useMutation({ mutationFn: (q: { query: string; mode: Mode }) => (q.mode === 'search' ? memoryApi.search(q.query) : memoryApi.recall(q.query)) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (query.trim() !== '') run.mutate({ query, mode });
  };
  const remove = async (item: MemoryItem) => {
    await memoryApi.delete([item.id]);
    void client.invalidateQueries({ queryKey: ['memory'] });
    if (run.variables) run.mutate(run.variables);
  };
  const items = run.data?.items ?? [];
  return (
    <div className="card" data-testid="memory-search">
      <h2>Search and recall</h2>
      <form onSubmit={submit} className="search-form">
        <input aria-label="Query" value={query} onChange={(e) => setQuery(e.target.value)} disabled={!canRead} data-testid="search-query" />
        <select aria-label="Mode" value={mode} onChange={(e) => setMode(e.target.value as Mode)} data-testid="search-mode">
          <option value="search">Search</option>
          <option value="recall">Recall</option>
        </select>
        <button type="submit" className="primary" disabled={!canRead || run.isPending || query.trim() === ''} data-testid="search-submit">
          {run.isPending ? 'Looking…' : 'Go'}
        </button>
      </form>
      {run.error && <ErrorNote error={run.error} />}
      {run.data && 'rerank' in run.data && <p className="muted" data-testid="recall-rerank">rerank: {String(run.data.rerank)}</p>}
      {run.data && items.length === 0 && <p className="muted" data-testid="search-empty">Nothing found.</p>}
      <ol className="results" data-testid="search-results">
        {items.map((item) => (
          <li key={item.id} data-testid={`result-${item.id}`}>
            <div className="result-head">
              <span className="score" data-testid="result-score">{item.score === null ? '—' : item.score.toFixed(4)}</span>
              <code className="muted">{item.bank}</code>
              {item.tags.map((tag) => <span key={tag} className="tag">{tag}</span>)}
              <button type="button" className="danger" disabled={!canDelete} title={why} onClick={() => setDoomed(item)} data-testid="result-delete">Delete</button>
            </div>
            <p className="result-text" data-testid="result-text">{item.text}</p>
          </li>
        ))}
      </ol>
      {doomed && (
        <Confirm
          title="Delete this memory?"
          changes={<p data-testid="confirm-changes">{doomed.text} <code>{doomed.id}</code></p>}
          action="Delete"
          onConfirm={() => remove(doomed)}
          onClose={() => setDoomed(null)}
        />
      )}
    </div>
  );
}
