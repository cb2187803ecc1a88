// The tool server records on disk: <config>/mcp-servers/<id>.toml, validated like every other
// configuration file (each problem with its file and field path), written atomically. The id
// grammar is the traversal guard: an id that fails it never becomes a path.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/atomic.js';
import type { SvcPaths } from '../config/paths.js';
import type { ConfigProblem } from '../config/problems.js';
import { errorsOf } from '../config/problems.js';
import { BundledServerFileSchema, MCP_ID_PATTERN, MCP_ID_RULE, McpServerFileSchema } from '../config/schema/mcp-server.js';
import { readTomlFile, stringifyToml, type TomlDoc } from '../config/toml.js';
import { validateDocument } from '../config/validate.js';
import { SvcError } from '../protocol/errors.js';
import type { McpServerRecord, ToolPolicyLists } from '../protocol/mcp.js';

export const recordFileName = (id: string) => `mcp-servers/${id}.toml`;

/** Throws mcp.invalid_id unless the id may name a record file. */
export function checkMcpId(id: string): void {
  if (!MCP_ID_PATTERN.test(id)) {
    throw new SvcError('mcp.invalid_id', `invalid tool server id ${JSON.stringify(id)}: expected ${MCP_ID_RULE}`, { id, problems: [{ path: 'id', message: `expected ${MCP_ID_RULE}` }] });
  }
}

export function mcpRecordPath(paths: SvcPaths, id: string): string {
  checkMcpId(id);
  return join(paths.mcpServersDir, `${id}.toml`);
}

/** The state folder of a server (its npm install); the id is checked first. */
export function mcpStatePath(paths: SvcPaths, id: string): string {
  checkMcpId(id);
  return join(paths.mcpStateDir, id);
}

export type Checked<T> = { ok: true; value: T; warnings: ConfigProblem[] } | { ok: false; problems: ConfigProblem[] };

/** Validate a record document for `id` (the file stem); an `id` key must agree with it. */
export function checkRecordDoc(id: string, doc: TomlDoc): Checked<McpServerRecord> {
  const file = recordFileName(id);
  const validated = validateDocument(McpServerFileSchema, doc, file);
  const problems = [...validated.problems];
  if (validated.value?.id !== undefined && validated.value.id !== id) {
    problems.push({ file, path: 'id', message: `the id ${JSON.stringify(validated.value.id)} differs from the file's name (${id})`, severity: 'error' });
  }
  if (errorsOf(problems).length > 0 || !validated.value) return { ok: false, problems: errorsOf(problems) };
  const v = validated.value;
  return {
    ok: true,
    warnings: problems,
    value: { ...v, id, name: v.name || id, tools: { ...v.tools } },
  };
}

/** A bundled server's file: only its `[tools]` policy. */
export function checkBundledDoc(id: string, doc: TomlDoc): Checked<ToolPolicyLists> {
  const validated = validateDocument(BundledServerFileSchema, doc, recordFileName(id));
  if (!validated.value) return { ok: false, problems: errorsOf(validated.problems) };
  return { ok: true, value: validated.value.tools, warnings: validated.problems };
}

/** The stored document of a record (the id is the file's name, so it is not repeated). */
export function recordDoc(record: McpServerRecord): TomlDoc {
  const { id: _id, ...rest } = record;
  return rest as unknown as TomlDoc;
}

export async function writeRecordDoc(paths: SvcPaths, id: string, doc: TomlDoc): Promise<void> {
  await writeFileAtomic(mcpRecordPath(paths, id), stringifyToml(doc));
}

export async function removeRecord(paths: SvcPaths, id: string): Promise<void> {
  await rm(mcpRecordPath(paths, id), { force: true });
}

export interface LoadedRecords {
  /** Valid records of installed servers, by id. */
  records: Map<string, McpServerRecord>;
  /** Tool policies stored for bundled servers, by id. */
  bundledPolicies: Map<string, ToolPolicyLists>;
  /** Problems of files that were skipped (and warnings of those loaded). */
  problems: ConfigProblem[];
}

/** Every record file; an invalid one is reported and left out, never fatal. */
export async function loadRecords(paths: SvcPaths, bundledIds: readonly string[]): Promise<LoadedRecords> {
  const loaded: LoadedRecords = { records: new Map(), bundledPolicies: new Map(), problems: [] };
  let names: string[];
  try {
    names = (await readdir(paths.mcpServersDir)).filter((n) => n.endsWith('.toml')).sort();
  } catch {
    return loaded;
  }
  for (const name of names) {
    const id = name.slice(0, -'.toml'.length);
    const file = recordFileName(id);
    if (!MCP_ID_PATTERN.test(id)) {
      loaded.problems.push({ file, path: '', message: `skipped: the file name is not a tool server id (${MCP_ID_RULE})`, severity: 'warning' });
      continue;
    }
    const read = await readTomlFile(join(paths.mcpServersDir, name), file);
    if (read.status === 'missing') continue;
    if (read.status === 'invalid') {
      loaded.problems.push(read.problem);
      continue;
    }
    if (bundledIds.includes(id)) {
      const checked = checkBundledDoc(id, read.doc);
      if (checked.ok) loaded.bundledPolicies.set(id, checked.value);
      loaded.problems.push(...(checked.ok ? checked.warnings : checked.problems));
      continue;
    }
    const checked = checkRecordDoc(id, read.doc);
    if (checked.ok) loaded.records.set(id, checked.value);
    loaded.problems.push(...(checked.ok ? checked.warnings : checked.problems));
  }
  return loaded;
}

/** Secrets whose api.env key does not exist, each a problem at `secrets.<ENV>`. */
export function missingSecrets(id: string, secrets: Readonly<Record<string, string>>, apiEnv: Readonly<Record<string, string>>): ConfigProblem[] {
  return Object.entries(secrets)
    .filter(([, key]) => !(key in apiEnv))
    .map(([envName, key]) => ({ file: recordFileName(id), path: `secrets.${envName}`, message: `api.env has no key ${key}`, severity: 'error' as const }));
}

export async function removeStateFolder(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
