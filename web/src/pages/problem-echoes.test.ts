import { describe, expect, it } from 'vitest';
import type { SvcEvent } from '../../../src/protocol/events.js';
import { withoutEchoes } from './problem-echoes.js';

const event = (id: number, type: string, ts: string, data: Record<string, unknown>) => ({ id, type, ts, severity: 'warn', source: 's', message: `${type} ${id}`, data }) as unknown as SvcEvent;

describe('the Overview lists each problem once', () => {
  it('drops the activity row of a failure that has its own event, keeps other activity rows', () => {
    const events = [
      event(1, 'pull.failed', '2026-12-01T10:00:00.000Z', { model_id: 'tiny', job: 'j1' }),
      event(2, 'activity', '2026-12-01T10:00:00.010Z', { action: 'model.pull', target: 'tiny', outcome: 'error' }),
      event(3, 'activity', '2026-12-01T10:00:01.000Z', { action: 'settings.update', target: 'svc.toml', outcome: 'error' }),
      // The same model failing again a minute later: a happening of its own.
      event(4, 'activity', '2026-12-01T10:01:00.000Z', { action: 'model.pull', target: 'tiny', outcome: 'error' }),
      event(5, 'slot.state', '2026-12-01T10:02:00.000Z', { slot: 'chat', to: 'error' }),
      event(6, 'activity', '2026-12-01T10:02:00.500Z', { action: 'slot.state', target: 'chat', outcome: 'error' }),
    ];
    expect(withoutEchoes(events).map((e) => e.id)).toEqual([1, 3, 4, 5]);
  });
});
