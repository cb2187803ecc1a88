// GET /api/doctor (docs/api.md, "GET /api/doctor"): the `svc doctor` battery as the gateway
// runs it, one result per check. The CLI's `svc doctor --json` prints the same shape.
export type DoctorCheckStatus = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  /** Stable: `config`, `disk`, `port:<n>`, `llama-server`, `updates`, … */
  id: string;
  status: DoctorCheckStatus;
  message: string;
  /** How to fix it; absent when ok. */
  hint?: string;
}

export interface DoctorPayload {
  /** No check failed (warnings do not count). */
  ok: boolean;
  failed: number;
  warnings: number;
  checks: DoctorCheck[];
}
