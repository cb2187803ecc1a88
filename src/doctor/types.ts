// One line of `svc doctor`.
export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  id: string;
  status: CheckStatus;
  message: string;
  /** How to fix it; absent when ok. */
  hint?: string;
}
