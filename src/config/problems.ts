// A configuration problem names the file, the field path and what was expected, e.g.
//   slots/chat.toml: slot.device: expected one of gpu-rocm, gpu-vulkan, gpu-cuda, cpu, npu; got "gpu"
// Loaders collect every problem in one pass; errors stop the server, warnings do not.
// The words of each message come from src/protocol/issues.ts, shared with request bodies.
export { describeIssue, describeValue, joinPath } from '../protocol/issues.js';
export { suggest } from '../protocol/near-matches.js';

export interface ConfigProblem {
  /** Path relative to the config root (or "environment" for SVC_* variables). */
  readonly file: string;
  /** Dotted field path inside the file; "" for the whole file. */
  readonly path: string;
  readonly message: string;
  readonly severity: 'error' | 'warning';
}

export function formatProblem(p: ConfigProblem): string {
  const where = p.path ? `${p.file}: ${p.path}` : p.file;
  return `${where}: ${p.severity === 'warning' ? 'warning: ' : ''}${p.message}`;
}

export const errorsOf = (problems: readonly ConfigProblem[]) => problems.filter((p) => p.severity === 'error');
export const warningsOf = (problems: readonly ConfigProblem[]) => problems.filter((p) => p.severity === 'warning');
