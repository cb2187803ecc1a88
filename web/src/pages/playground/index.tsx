// The Playground: try the models svc serves, through /v1 as any client would. One tool per
// tab (/playground is chat, /playground/<tool> the others); every tool stays mounted while
// on the page, so a conversation or a result survives a look at another tab.
import { useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ErrorNote } from '../../components/error-note.js';
import { useEvents } from '../../live.js';
import { slotsQuery } from '../../queries.js';
import { Link, useSubPath, useTitle } from '../../router.js';
import { Chat } from './chat.js';
import { Embeddings } from './embeddings.js';
import { Image } from './image.js';
import { keepSelection, modelsByTool, TOOLS, type Tool } from './model-kinds.js';
import { RELIST_MODELS, v1ModelsQuery } from './queries.js';
import { Rerank } from './rerank.js';
import { Speech } from './speech.js';
import { Transcription } from './transcription.js';
import './playground.css';

const LABELS: Readonly<Record<Tool, string>> = { chat: 'Chat', embeddings: 'Embeddings', rerank: 'Rerank', speech: 'Speech', transcription: 'Transcription', image: 'Image' };
const PANELS = { chat: Chat, embeddings: Embeddings, rerank: Rerank, speech: Speech, transcription: Transcription, image: Image } as const;
const pathOf = (tool: Tool) => (tool === 'chat' ? '/playground' : `/playground/${tool}`);

export default function Page() {
  const [sub] = useSubPath('/playground');
  const active: Tool = TOOLS.find((t) => t === sub) ?? 'chat';
  useTitle(active === 'chat' ? 'Playground' : `Playground · ${LABELS[active]}`);
  const queries = useQueryClient();
  const models = useQuery(v1ModelsQuery);
  const slots = useQuery(slotsQuery);
  // A slot that comes up (or goes) changes what /v1/models lists.
  useEvents((event) => {
    if (RELIST_MODELS.test(event.type)) void queries.invalidateQueries({ queryKey: v1ModelsQuery.queryKey });
  });
  const byTool = useMemo(() => modelsByTool(models.data, new Map((slots.data?.slots ?? []).map((s) => [s.name, s.type]))), [models.data, slots.data]);
  const [chosen, setChosen] = useState<Partial<Record<Tool, string>>>({});

  return (
    <section className="page playground">
      <h1>Playground</h1>
      <p className="muted">
        Requests go to <code>/v1</code> as any OpenAI client&apos;s would; each answer shows svc&apos;s own overhead from its <code>Server-Timing</code> header.
      </p>
      <nav className="playground-tabs" aria-label="Playground tools">
        {TOOLS.map((tool) => (
          <Link key={tool} to={pathOf(tool)} current={tool === active}>
            {LABELS[tool]}
          </Link>
        ))}
      </nav>
      {models.error && <ErrorNote error={models.error} />}
      {models.isPending && <p className="muted">Reading /v1/models…</p>}
      {TOOLS.map((tool) => {
        const Panel = PANELS[tool];
        const options = byTool[tool];
        return (
          <div key={tool} hidden={tool !== active} data-testid={`panel-${tool}`}>
            <Panel options={options} model={keepSelection(chosen[tool] ?? '', options)} onModel={(id) => setChosen((old) => ({ ...old, [tool]: id }))} />
          </div>
        );
      })}
    </section>
  );
}
