// Rerank: the documents ordered by their relevance to a query, each with its score.
import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Field } from '../../components/field.js';
import type { ModelOption } from './model-kinds.js';
import { ToolForm } from './tool-form.js';
import { postJson } from './v1-client.js';
import { DataTable } from '../../components/data-table.js';

interface RerankAnswer {
  results: Array<{ index: number; relevance_score: number }>;
}

/** One document per non-blank line. */
export const documentsOf = (text: string): string[] => text.split('\n').map((line) => line.trim()).filter(Boolean);

export function Rerank(props: { options: readonly ModelOption[]; model: string; onModel: (id: string) => void }) {
  const [query, setQuery] = useState('what is a cat');
  const [text, setText] = useState('a cat sat on the mat\nthe sun is big\ncars go fast\ncats are small animals');
  const documents = documentsOf(text);
  const run = useMutation({ mutationFn: (sent: { query: string; documents: string[] }) => postJson<RerankAnswer>('/v1/rerank', { model: props.model, ...sent }) });
  // The documents as sent, so editing the list afterwards does not relabel the scores.
  const sent = run.variables?.documents ?? [];
  const ordered = [...(run.data?.body.results ?? [])].sort((a, b) => b.relevance_score - a.relevance_score);
  return (
    <ToolForm tool="rerank" title="Rerank" action="Rerank" ready={query.trim() !== '' && documents.length > 0} busy={run.isPending} onRun={() => run.mutate({ query, documents })} error={run.error} timing={run.data?.timing ?? null} {...props}
      result={
        run.data && (
          <DataTable columns={['#', 'score', 'document']} testId="rerank-results" caption="Most relevant first" captionClassName="muted">
            {ordered.map((r, rank) => (
              <tr key={r.index} data-testid="rerank-row">
                <td>{rank + 1}</td>
                <td data-testid="rerank-score">{r.relevance_score.toFixed(4)}</td>
                <td>{sent[r.index] ?? `document ${r.index}`}</td>
              </tr>
            ))}
          </DataTable>
        )
      }
    >
      <Field label="Query" path="query">
        <input value={query} onChange={(e) => setQuery(e.target.value)} data-testid="rerank-query" />
      </Field>
      <Field label="Documents" path="documents" hint="One per line.">
        <textarea rows={5} value={text} onChange={(e) => setText(e.target.value)} data-testid="rerank-documents" />
      </Field>
    </ToolForm>
  );
}
