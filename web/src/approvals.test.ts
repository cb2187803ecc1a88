import { describe, expect, it } from 'vitest';
import type { ApprovalEntry } from '../../src/protocol/mcp.js';
import { foldApproval } from './approvals.js';

const entry = (id: string, at: string, patch: Partial<ApprovalEntry> = {}): ApprovalEntry => ({
  id,
  tool: 'svc-admin__status',
  server: 'svc-admin',
  args: {},
  client_id: 'mcp:127.0.0.1',
  enqueued_at: at,
  state: 'pending',
  hit_count: 1,
  decided_at: null,
  decided_by: null,
  expires_at: '2026-01-01T00:05:00.000Z',
  result: null,
  error: null,
  ...patch,
});

describe('foldApproval', () => {
  it('adds a pending entry in enqueue order', () => {
    const list = foldApproval([entry('b', '2026-01-01T00:00:02.000Z')], entry('a', '2026-01-01T00:00:01.000Z'));
    expect(list.map((e) => e.id)).toEqual(['a', 'b']);
  });

  it('replaces an entry a duplicate call joined', () => {
    const list = foldApproval([entry('a', '2026-01-01T00:00:01.000Z')], entry('a', '2026-01-01T00:00:01.000Z', { hit_count: 2 }));
    expect(list).toHaveLength(1);
    expect(list[0]?.hit_count).toBe(2);
  });

  it('takes off an entry once it is decided or expired', () => {
    for (const state of ['approved', 'denied', 'executed', 'failed', 'expired'] as const) {
      expect(foldApproval([entry('a', '2026-01-01T00:00:01.000Z')], entry('a', '2026-01-01T00:00:01.000Z', { state }))).toEqual([]);
    }
  });
});
