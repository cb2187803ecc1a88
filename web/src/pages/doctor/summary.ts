// What the Doctor page says about a run, as pure functions.
import type { DoctorCheck, DoctorCheckStatus, DoctorPayload } from '../../../../src/protocol/doctor-wire.js';

export const STATUS_WORD: Readonly<Record<DoctorCheckStatus, string>> = { ok: 'ok', warn: 'warning', fail: 'failed' };

/** "14 checks: 12 ok, 1 warning, 1 failed". */
export function summaryOf(payload: DoctorPayload): string {
  const passed = payload.checks.length - payload.failed - payload.warnings;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${plural(payload.checks.length, 'check')}: ${passed} ok, ${plural(payload.warnings, 'warning')}, ${payload.failed} failed`;
}

/** Failures first, then warnings, then what is fine; the battery's order within each. */
export function worstFirst(checks: readonly DoctorCheck[]): DoctorCheck[] {
  const rank: Record<DoctorCheckStatus, number> = { fail: 0, warn: 1, ok: 2 };
  return checks.map((check, index) => ({ check, index })).sort((a, b) => rank[a.check.status] - rank[b.check.status] || a.index - b.index).map(({ check }) => check);
}
