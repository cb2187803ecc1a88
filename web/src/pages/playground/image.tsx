// Image generation: a prompt (and a size), the image back. Asked for as base64 so a remote
// endpoint's image shows too (the page may load images only from svc itself or data: URLs).
import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Field } from '../../components/field.js';
import { problemsOfError } from '../../field-problems.js';
import type { ModelOption } from './model-kinds.js';
import { ToolForm } from './tool-form.js';
import { postJson } from './v1-client.js';

interface ImagesAnswer {
  data: Array<{ b64_json?: string; url?: string; revised_prompt?: string }>;
}

/** Where an answer's image can be shown from: its base64 as a data: URL, else an svc-relative url. */
export function imageSource(item: ImagesAnswer['data'][number]): string | null {
  if (item.b64_json) return `data:image/png;base64,${item.b64_json}`;
  if (item.url?.startsWith('/')) return item.url;
  return null;
}

export function Image(props: { options: readonly ModelOption[]; model: string; onModel: (id: string) => void }) {
  const [prompt, setPrompt] = useState('a lighthouse at dusk, oil painting');
  const [size, setSize] = useState('');
  const run = useMutation({
    mutationFn: (sent: string) => postJson<ImagesAnswer>('/v1/images/generations', { model: props.model, prompt: sent, response_format: 'b64_json', ...(size.trim() && { size: size.trim() }) }),
  });
  const problems = problemsOfError(run.error);
  const sizeProblem = size.trim() !== '' && !/^(auto|\d+x\d+)$/.test(size.trim()) ? 'WIDTHxHEIGHT, e.g. 512x512' : problems.size;
  return (
    <ToolForm tool="image" title="Image generation" action="Generate" ready={prompt.trim() !== '' && sizeProblem === undefined} busy={run.isPending} onRun={() => run.mutate(prompt)} error={run.error} timing={run.data?.timing ?? null} {...props}
      result={run.data?.body.data.map((item, i) => {
        const src = imageSource(item);
        return src ? (
          <img key={i} className="playground-image" src={src} alt={`generated from: ${run.variables ?? ''}`} data-testid="image-output" />
        ) : (
          <p key={i} className="muted">
            The image is at <code>{item.url}</code>, which this page may not load.
          </p>
        );
      })}
    >
      <Field label="Prompt" path="prompt" problem={problems.prompt}>
        <textarea rows={3} value={prompt} onChange={(e) => setPrompt(e.target.value)} data-testid="image-prompt" />
      </Field>
      <Field label="Size" path="size" hint="WIDTHxHEIGHT; blank: the slot's default_size" problem={sizeProblem}>
        <input value={size} onChange={(e) => setSize(e.target.value)} />
      </Field>
    </ToolForm>
  );
}
