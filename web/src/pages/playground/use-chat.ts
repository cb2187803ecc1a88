// One conversation and the stream of its latest answer: send a message (the whole
// conversation goes with it, the system prompt first), follow the answer chunk by chunk into
// its turn, and Stop, which aborts the request (the gateway then aborts the engine's work).
import { useCallback, useRef, useState } from 'react';
import { ApiError } from '../../api-error.js';
import { EMPTY_PROGRESS, endNote, foldChunk, type ChatProgress } from './chat-stream.js';
import type { Turn } from './conversation.js';
import { isAbort, postStream } from './v1-client.js';

export interface ChatRequest {
  model: string;
  system: string;
  /** Temperature, max tokens and any extra fields. */
  params: Record<string, unknown>;
  message: string;
}

/** The messages a request sends: the system prompt, then every turn with something said. */
export function messagesFor(system: string, turns: readonly Turn[], message: string): Array<{ role: string; content: string }> {
  const earlier = turns.filter((t) => t.content !== '').map((t) => ({ role: t.role, content: t.content }));
  return [...(system.trim() ? [{ role: 'system', content: system }] : []), ...earlier, { role: 'user', content: message }];
}

const newTurn = (id: number, role: Turn['role'], content: string): Turn => ({ id, role, content, reasoning: '', status: role === 'user' ? 'done' : 'streaming', note: null, timing: null, usage: null, error: null, waiting: null });

export function useChat() {
  const [turns, setTurns] = useState<Turn[]>([]);
  const abort = useRef<AbortController | null>(null);
  const nextId = useRef(1);
  const [streaming, setStreaming] = useState(false);

  const send = useCallback(
    async ({ model, system, params, message }: ChatRequest) => {
      const controller = new AbortController();
      abort.current = controller;
      const messages = messagesFor(system, turns, message);
      const answerId = nextId.current + 1;
      nextId.current += 2;
      setTurns((old) => [...old, newTurn(answerId - 1, 'user', message), newTurn(answerId, 'assistant', '')]);
      const patch = (change: Partial<Turn>) => setTurns((old) => old.map((t) => (t.id === answerId ? { ...t, ...change } : t)));
      setStreaming(true);
      let progress: ChatProgress = EMPTY_PROGRESS;
      let stopped = false;
      try {
        await postStream('/v1/chat/completions', { ...params, model, messages, stream: true, stream_options: { include_usage: true } }, controller.signal, {
          onHead: (timing) => patch({ timing }),
          onComment: (comment) => comment.startsWith('svc:') && patch({ waiting: `${comment.slice(4).trim()}…` }),
          onData: (data) => {
            progress = foldChunk(progress, data);
            patch({ content: progress.content, reasoning: progress.reasoning, usage: progress.usage, error: progress.error });
          },
        });
      } catch (error) {
        if (isAbort(error)) stopped = true;
        else progress = { ...progress, error: error instanceof ApiError ? error : new ApiError('dashboard.error', String(error)) };
      } finally {
        abort.current = null;
        setStreaming(false);
      }
      const status = stopped ? 'stopped' : progress.error ? 'failed' : 'done';
      patch({ content: progress.content, reasoning: progress.reasoning, usage: progress.usage, error: progress.error, status, note: endNote(progress, stopped), waiting: null });
    },
    [turns],
  );

  const stop = useCallback(() => abort.current?.abort(), []);
  const clear = useCallback(() => setTurns([]), []);
  return { turns, streaming, send, stop, clear };
}
