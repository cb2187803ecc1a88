import { describe, expect, it } from 'vitest';
import { ACTIVITY_DETAILS_MAX_BYTES, activityEvent } from './event-sources.js';

describe('activityEvent', () => {
  it('carries a row as stored: defaults filled, secrets redacted', () => {
    const event = activityEvent({ action: 'settings.update', details: { api_key: 'sk-123', changed: ['slots.max_slots'] } });
    expect(event.data).toMatchObject({ action: 'settings.update', target: '', outcome: 'ok', actor: 'system', details: { api_key: '***', changed: ['slots.max_slots'] } });
  });

  it('cuts details too large for the ring to a note pointing at /api/activity', () => {
    const huge = 'x'.repeat(ACTIVITY_DETAILS_MAX_BYTES);
    const event = activityEvent({ action: 'settings.update', details: { changes: { before: huge, after: huge } } });
    expect(event.data).toMatchObject({ details: { truncated: true, note: expect.stringContaining('GET /api/activity') } });
    expect((event.data as unknown as { details: { bytes: number } }).details.bytes).toBeGreaterThan(2 * ACTIVITY_DETAILS_MAX_BYTES);
    expect(JSON.stringify(event).length).toBeLessThan(1024);
  });
});
