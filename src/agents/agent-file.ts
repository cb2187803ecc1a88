// agents/<name>.toml (docs/agents.md, "The agent file"): one file per installed agent, written by
// the service when an install succeeds and removed by uninstall. Validated like every other
// configuration file (each problem with its file and field path), written atomically. Its
// presence is what "installed" means; the driver's installedVersion says whether it still works.
import { rm } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from '../config/atomic.js';
import { ENV_KEY_PATTERN, httpUrl } from '../config/schema/common.js';
import { checkToolListsApart } from '../config/schema/mcp-server.js';
import type { ConfigProblem } from '../config/problems.js';
import { errorsOf } from '../config/problems.js';
import { readTomlFile, stringifyToml, type TomlDoc } from '../config/toml.js';
import { validateDocument } from '../config/validate.js';
import { AGENT_KINDS } from '../protocol/agents.js';
import { AGENT_NAME_PATTERN } from './names.js';

const NAME_RULE = 'lowercase letters, digits and "-", starting with a letter or digit, at most 32 characters';
const toolName = z.string().min(1).max(128);

/** `[tools]` of a tool server: allow, gated and blocked must not share a name (the later list is blamed). */
const AgentToolsSchema = z
  .strictObject({ allow: z.array(toolName).default([]), gated: z.array(toolName).default([]), blocked: z.array(toolName).default([]) })
  .superRefine(checkToolListsApart)
  .prefault({});

const McpAuthSchema = z
  .strictObject({
    kind: z.enum(['none', 'bearer-from-env']).default('none'),
    env: z.string().regex(ENV_KEY_PATTERN, { message: 'expected an environment variable name' }).optional(),
  })
  .superRefine((auth, ctx) => {
    if (auth.kind === 'bearer-from-env' && !auth.env) ctx.addIssue({ code: 'custom', path: ['env'], message: 'bearer-from-env needs env: the variable that holds the token' });
  })
  .prefault({});

const McpServerEntrySchema = z.strictObject({
  url: httpUrl(),
  enabled: z.boolean().default(true),
  builtin: z.boolean().default(false),
  auth: McpAuthSchema,
  tools: AgentToolsSchema,
});

export const AgentFileSchema = z.strictObject({
  schema_version: z.literal(1).default(1),
  /** Where the agent keeps its own data (sessions, personas): kept by uninstall unless purged. */
  data_dir: z.string().default(''),
  agent: z.strictObject({
    name: z.string().regex(AGENT_NAME_PATTERN, { message: `expected an agent name: ${NAME_RULE}` }),
    display: z.string().max(200).default(''),
    workspace: z.string().max(4096).default(''),
    kind: z.enum(AGENT_KINDS).optional(),
    installed_at: z.string().default(''),
    /** The version installed (svc's addition: what upgrade moves from). */
    version: z.string().max(64).default(''),
    /** true: an upgrade without --to keeps this version. */
    version_pin: z.boolean().default(false),
  }),
  mcp: z.strictObject({ servers: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, { message: 'expected a tool server id' }), McpServerEntrySchema).default({}) }).prefault({}),
});
export type AgentFile = z.output<typeof AgentFileSchema>;

export const agentFileName = (name: string) => `agents/${name}.toml`;

export type AgentFileRead = { status: 'missing' } | { status: 'ok'; file: AgentFile; warnings: ConfigProblem[] } | { status: 'invalid'; problems: ConfigProblem[] };

/** Validate a parsed document of `name`'s file; its [agent].name must be the file's name. */
export function checkAgentDoc(name: string, doc: TomlDoc): AgentFileRead {
  const file = agentFileName(name);
  const validated = validateDocument(AgentFileSchema, doc, file);
  const problems = [...validated.problems];
  if (validated.value && validated.value.agent.name !== name) {
    problems.push({ file, path: 'agent.name', message: `the name ${JSON.stringify(validated.value.agent.name)} differs from the file's name (${name})`, severity: 'error' });
  }
  if (errorsOf(problems).length > 0 || !validated.value) return { status: 'invalid', problems: errorsOf(problems) };
  return { status: 'ok', file: validated.value, warnings: problems };
}

export async function readAgentFile(path: string, name: string): Promise<AgentFileRead> {
  const read = await readTomlFile(path, agentFileName(name));
  if (read.status === 'missing') return read;
  if (read.status === 'invalid') return { status: 'invalid', problems: [read.problem] };
  return checkAgentDoc(name, read.doc);
}

/** The seed an install writes (name, installed_at, version_pin = false, data_dir; docs/agents.md, "The agent file"). */
export function seedAgentFile(name: string, kind: (typeof AGENT_KINDS)[number], version: string, dataDir: string, now = new Date()): AgentFile {
  return AgentFileSchema.parse({ schema_version: 1, data_dir: dataDir, agent: { name, kind, installed_at: now.toISOString(), version, version_pin: false }, mcp: { servers: {} } });
}

export async function writeAgentFile(path: string, file: AgentFile): Promise<void> {
  await writeFileAtomic(path, stringifyToml(file as unknown as TomlDoc));
}

export async function removeAgentFile(path: string): Promise<void> {
  await rm(path, { force: true });
}
