// One line of `svc doctor`: the wire type of GET /api/doctor (src/protocol/doctor-wire.ts).
import type { DoctorCheck, DoctorCheckStatus } from '../protocol/doctor-wire.js';

export type CheckStatus = DoctorCheckStatus;
export type CheckResult = DoctorCheck;
