import { describe, expect, it } from 'vitest';
import type { SvcEvent } from '../../../../src/protocol/events.js';
import type { UpdateJob } from '../../../../src/protocol/updates.js';
import { changesOf, foldJobEvent, isFinished, stepsOf } from './job.js';

const job: UpdateJob = {
  id: 'abc123def456', kind: 'update', channel: 'stable', state: 'queued', message: 'queued',
  from: { version: '1.0.0', path: '/a' }, to: { version: '1.1.0', path: '/b' },
  created_at: '2026-05-01T00:00:00.000Z', updated_at: '2026-05-01T00:00:00.000Z', error: null, restarted: null,
  restart_mode: null, migration: null, history: [{ state: 'queued', at: '2026-05-01T00:00:00.000Z', message: 'queued' }], owner_pid: 1, handover: null,
};
const data = { job: job.id, kind: 'update' as const, from: '1.0.0', to: '1.1.0' };
const event = (type: string, extra: Record<string, unknown> = {}, message = type) =>
  ({ id: 1, ts: '2026-05-01T00:00:05.000Z', type, severity: 'info', source: 'gateway', message, data: { ...data, ...extra } }) as unknown as SvcEvent;

describe('an update job followed from events', () => {
  it('enters each state the progress events name, once', () => {
    const downloading = foldJobEvent(job, event('update.progress', { state: 'downloading' }))!;
    expect(downloading).toMatchObject({ state: 'downloading', updated_at: '2026-05-01T00:00:05.000Z' });
    expect(downloading.history.map((h) => h.state)).toEqual(['queued', 'downloading']);
    expect(foldJobEvent(downloading, event('update.progress', { state: 'downloading' }))!.history).toHaveLength(2);
    expect(isFinished(downloading)).toBe(false);
  });

  it('ends applied, failed with its code, or rolled back as a health failure', () => {
    expect(foldJobEvent(job, event('update.applied'))).toMatchObject({ state: 'applied', error: null });
    const failed = foldJobEvent(job, event('update.failed', { code: 'update.install_failed' }, 'npm install failed'))!;
    expect(failed).toMatchObject({ state: 'failed', error: { code: 'update.install_failed', message: 'npm install failed' } });
    expect(isFinished(failed)).toBe(true);
    expect(foldJobEvent(job, event('update.rolled_back', { reason: 'no answer' }))).toMatchObject({ state: 'rolled_back', error: { code: 'update.health_failed', message: 'no answer' } });
  });

  it('ignores other jobs, other types and unknown states', () => {
    expect(foldJobEvent(job, event('update.progress', { state: 'downloading', job: 'other' }))).toBeNull();
    expect(foldJobEvent(job, event('update.progress', { state: 'dancing' }))).toBeNull();
    expect(foldJobEvent(job, event('update.started'))).toBeNull();
    expect(foldJobEvent(job, event('slot.state'))).toBeNull();
  });

  it('lists the steps of each kind and says what a confirmation changes, from → to', () => {
    expect(stepsOf('update')).toEqual(['queued', 'downloading', 'verifying', 'installing', 'migrating', 'switching', 'restarting', 'health_check']);
    expect(stepsOf('rollback')).toEqual(['queued', 'migrating', 'switching', 'restarting', 'health_check']);
    expect(changesOf('update', '1.0.0', '1.1.0')[0]).toBe('svc 1.0.0 → 1.1.0');
    expect(changesOf('rollback', '1.1.0', '1.0.0').join('\n')).toMatch(/svc\.previous/);
  });
});
