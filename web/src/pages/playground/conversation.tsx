// The conversation so far: each turn as it was sent or answered. The answer being streamed is
// a turn like the others, updated in place as its chunks arrive; the list follows it down
// unless the reader has scrolled up.
import { useLayoutEffect, useRef } from 'react';
import type { ApiError } from '../../api-error.js';
import { ErrorNote } from '../../components/error-note.js';
import type { GatewayTiming } from './server-timing.js';
import { TimingNote } from './timing-note.js';
import type { ChatUsage } from './chat-stream.js';

export type TurnStatus = 'streaming' | 'done' | 'stopped' | 'failed';

export interface Turn {
  id: number;
  role: 'user' | 'assistant';
  content: string;
  reasoning: string;
  status: TurnStatus;
  /** How an answer ended ("cut off at max tokens"), once it did. */
  note: string | null;
  timing: GatewayTiming | null;
  usage: ChatUsage | null;
  error: ApiError | null;
  /** The gateway's keep-alive while the slot loads ("svc: loading slot chat"). */
  waiting: string | null;
}

function AssistantTurn({ turn }: { turn: Turn }) {
  return (
    <li className="turn turn-assistant" data-testid="assistant-turn" data-status={turn.status} aria-busy={turn.status === 'streaming'}>
      <span className="turn-role">assistant</span>
      {turn.reasoning && (
        <details className="turn-reasoning">
          <summary>thinking</summary>
          <p>{turn.reasoning}</p>
        </details>
      )}
      <p className="turn-text" data-testid="assistant-text">
        {turn.content}
      </p>
      {turn.status === 'streaming' && turn.content === '' && <p className="muted">{turn.waiting ?? 'waiting for the first token…'}</p>}
      {turn.error && <ErrorNote error={turn.error} />}
      <p className="turn-meta">
        {turn.note && (
          <span data-testid="turn-note" className={turn.status === 'stopped' ? 'turn-stopped' : undefined}>
            {turn.note}
          </span>
        )}
        {turn.usage && (
          <span className="muted">
            {turn.usage.prompt_tokens} prompt + {turn.usage.completion_tokens} answer tokens
          </span>
        )}
        <TimingNote timing={turn.timing} testId="chat-timing" />
      </p>
    </li>
  );
}

/** Keep a scrolled list at its bottom as it grows, while the reader is there (within 40 px). */
function useFollowBottom(content: unknown) {
  const list = useRef<HTMLOListElement>(null);
  const atBottom = useRef(true);
  useLayoutEffect(() => {
    const element = list.current;
    if (element && atBottom.current) element.scrollTop = element.scrollHeight;
  }, [content]);
  const onScroll = () => {
    const element = list.current;
    if (element) atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
  };
  return { list, onScroll };
}

export function Conversation({ turns }: { turns: readonly Turn[] }) {
  const { list, onScroll } = useFollowBottom(turns);
  if (turns.length === 0) return <p className="muted">No messages yet: write one below.</p>;
  return (
    // Scrollable, so it takes focus: a keyboard can scroll it too.
    <ol className="conversation" data-testid="conversation" aria-live="polite" aria-label="conversation" ref={list} onScroll={onScroll} tabIndex={0}>
      {turns.map((turn) =>
        turn.role === 'user' ? (
          <li key={turn.id} className="turn turn-user" data-testid="user-turn">
            <span className="turn-role">you</span>
            <p className="turn-text">{turn.content}</p>
          </li>
        ) : (
          <AssistantTurn key={turn.id} turn={turn} />
        ),
      )}
    </ol>
  );
}
