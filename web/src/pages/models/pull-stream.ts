// A running pull followed through its own SSE route (GET /api/models/<id>/pull/stream: the
// job at once, then at most every 0.5 s while it changes, then its final state), each frame
// put into the pull list's cache. No polling: the stream is the only source of progress.
import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { PullJobPayload } from '../../../../src/protocol/pulls.js';
import { pullsQuery } from './queries.js';
import { isTerminal, withJob } from './pull-math.js';

export function useJobStream(modelId: string, running: boolean): void {
  const queries = useQueryClient();
  useEffect(() => {
    if (!running) return;
    const source = new EventSource(`/api/models/${encodeURIComponent(modelId)}/pull/stream`);
    source.onmessage = (message: MessageEvent<string>) => {
      const job = JSON.parse(message.data) as PullJobPayload;
      queries.setQueryData(pullsQuery.queryKey, (old) => ({ pulls: withJob(old?.pulls ?? [], job) }));
      // The server ends the stream after the final frame; closing here keeps EventSource
      // from opening it again.
      if (isTerminal(job.state)) source.close();
    };
    return () => source.close();
  }, [modelId, running, queries]);
}
