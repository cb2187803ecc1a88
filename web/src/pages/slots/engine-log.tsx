// The slot's engine log, following live from the logs route's stream (the last lines, then
// each new one as the engine writes it). Leaving the page aborts the stream; a stream that
// ended (the server shut down, the slot was deleted) or failed says so and can be followed again.
import { useEffect, useRef, useState } from 'react';
import { ErrorNote } from '../../components/error-note.js';
import { appendLines, followLog } from './log-follow.js';
import { slotApi } from './queries.js';

type Following = 'following' | 'ended' | 'failed';

export function EngineLog({ name }: { name: string }) {
  const [lines, setLines] = useState<string[]>([]);
  const [state, setState] = useState<Following>('following');
  const [error, setError] = useState<unknown>(null);
  const [round, setRound] = useState(0);
  const view = useRef<HTMLPreElement>(null);
  useEffect(() => {
    const abort = new AbortController();
    setLines([]);
    setState('following');
    setError(null);
    followLog(slotApi.logUrl(name, 200), (added) => setLines((old) => appendLines(old, added)), abort.signal)
      .then(() => !abort.signal.aborted && setState('ended'))
      .catch((failure: unknown) => {
        setError(failure);
        setState('failed');
      });
    return () => abort.abort();
  }, [name, round]);
  // Keep the newest line in view, unless the reader scrolled up to read older ones.
  const pinned = useRef(true);
  useEffect(() => {
    const pre = view.current;
    if (pre && pinned.current) pre.scrollTop = pre.scrollHeight;
  }, [lines]);
  const onScroll = () => {
    const pre = view.current;
    if (pre) pinned.current = pre.scrollHeight - pre.scrollTop - pre.clientHeight < 24;
  };
  return (
    <div className="card slot-log">
      <div className="toolbar">
        <h2>Engine log</h2>
        <span className="muted" data-testid="log-state">
          {state === 'following' ? 'following live' : state === 'ended' ? 'the stream ended' : 'not following'}
        </span>
        {state !== 'following' && (
          <button type="button" onClick={() => setRound((n) => n + 1)}>
            Follow again
          </button>
        )}
      </div>
      {error !== null && <ErrorNote error={error} />}
      <pre ref={view} className="log" role="log" aria-label={`engine log of ${name}`} tabIndex={0} onScroll={onScroll} data-testid="engine-log">
        {lines.length === 0 ? <span className="muted">no lines yet: the engine writes here once it starts</span> : lines.join('\n')}
      </pre>
    </div>
  );
}
