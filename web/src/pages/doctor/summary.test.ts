import { describe, expect, it } from 'vitest';
import { summaryOf, worstFirst } from './summary.js';

const checks = [
  { id: 'config', status: 'ok' as const, message: 'valid' },
  { id: 'disk', status: 'warn' as const, message: 'low', hint: 'free space' },
  { id: 'port:8081', status: 'fail' as const, message: 'held', hint: 'stop it' },
  { id: 'clock', status: 'ok' as const, message: 'synced' },
  { id: 'proxy', status: 'warn' as const, message: 'none', hint: 'svc auth' },
];

describe('doctor summary', () => {
  it('counts each status', () => {
    expect(summaryOf({ ok: false, failed: 1, warnings: 2, checks })).toBe('5 checks: 2 ok, 2 warnings, 1 failed');
    expect(summaryOf({ ok: true, failed: 0, warnings: 1, checks: checks.slice(0, 2) })).toBe('2 checks: 1 ok, 1 warning, 0 failed');
  });

  it('puts failures first, then warnings, keeping the battery order within each', () => {
    expect(worstFirst(checks).map((c) => c.id)).toEqual(['port:8081', 'disk', 'proxy', 'config', 'clock']);
  });
});
