// Embeddings: the vector's length and its first values, for a text.
import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Field } from '../../components/field.js';
import type { ModelOption } from './model-kinds.js';
import { ToolForm } from './tool-form.js';
import { postJson } from './v1-client.js';

interface EmbeddingsAnswer {
  data: Array<{ index: number; embedding: number[] }>;
  usage?: { prompt_tokens?: number };
}

const PREVIEW = 8;

/** "0.0123, -0.4410, …": the first values of a vector, to 4 places. */
export const previewVector = (vector: readonly number[], count = PREVIEW): string =>
  vector.slice(0, count).map((x) => x.toFixed(4)).join(', ') + (vector.length > count ? ', …' : '');

export function Embeddings(props: { options: readonly ModelOption[]; model: string; onModel: (id: string) => void }) {
  const [input, setInput] = useState('The quick brown fox jumps over the lazy dog.');
  const run = useMutation({ mutationFn: () => postJson<EmbeddingsAnswer>('/v1/embeddings', { model: props.model, input, encoding_format: 'float' }) });
  const vector = run.data?.body.data[0]?.embedding;
  return (
    <ToolForm tool="embeddings" title="Embeddings" action="Embed" ready={input.trim() !== ''} busy={run.isPending} onRun={() => run.mutate()} error={run.error} timing={run.data?.timing ?? null} {...props}
      result={
        vector && (
          <dl className="facts">
            <dt>length</dt>
            <dd data-testid="embeddings-length">{vector.length}</dd>
            <dt>first values</dt>
            <dd className="playground-wrap">
              <code data-testid="embeddings-preview">[{previewVector(vector)}]</code>
            </dd>
            {run.data?.body.usage?.prompt_tokens !== undefined && (
              <>
                <dt>tokens</dt>
                <dd>{run.data.body.usage.prompt_tokens}</dd>
              </>
            )}
          </dl>
        )
      }
    >
      <Field label="Text" path="input">
        <textarea rows={3} value={input} onChange={(e) => setInput(e.target.value)} data-testid="embeddings-input" />
      </Field>
    </ToolForm>
  );
}
