// svc's own overhead on one answer (Server-Timing svc;dur), and the wait for a slot to start
// when there was one (load;dur), so a slow first answer is not blamed on the gateway.
import { formatMs, type GatewayTiming } from './server-timing.js';

export function TimingNote({ timing, testId }: { timing: GatewayTiming | null; testId: string }) {
  if (!timing) return null;
  // A stream that waited for its slot sent its head (keep-alives) before svc's time was known.
  if (timing.overheadMs === null) return <span className="muted playground-timing">no Server-Timing on this answer</span>;
  return (
    <span className="muted playground-timing" data-testid={testId} title="from the answer's Server-Timing header">
      svc overhead <strong data-testid={`${testId}-ms`}>{formatMs(timing.overheadMs)}</strong>
      {timing.loadMs !== null && <> · waited {formatMs(timing.loadMs)} for the slot to load</>}
    </span>
  );
}
