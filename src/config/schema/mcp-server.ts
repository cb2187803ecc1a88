// mcp-servers/<id>.toml: one tool server's record (docs/mcp.md; docs/configuration.md, "Tool server files"). Flat keys
// for the server, tables for env, secrets and the tool policy. The id is also the file's
// stem, and its grammar is what keeps an id from naming a path outside the folder.
import { z } from 'zod';
import { MCP_TRANSPORTS, TOOL_POLICIES } from '../../protocol/mcp.js';
import { ENV_KEY_PATTERN, envVarName, httpUrl } from './common.js';
import { nulFreeString } from '../../protocol/no-nul.js';

export const MCP_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const MCP_ID_RULE = 'lowercase letters, digits, "-" and "_", starting with a letter or digit, at most 64 characters';

const toolName = z.string().min(1).max(128);

const policyLists = {
  allow: z.array(toolName).default([]),
  gated: z.array(toolName).default([]),
  blocked: z.array(toolName).default([]),
  default: z.enum(TOOL_POLICIES).default('allow'),
};

/** The allow, gated and blocked lists must not share a name; the later list's entry is blamed (tool servers' and agents' `[tools]`). */
export function checkToolListsApart(lists: Record<'allow' | 'gated' | 'blocked', string[]>, ctx: z.RefinementCtx): void {
  const seen = new Map<string, string>();
  for (const list of ['allow', 'gated', 'blocked'] as const) {
    lists[list].forEach((name, index) => {
      const first = seen.get(name);
      if (first && first !== list) ctx.addIssue({ code: 'custom', path: [list, index], message: `"${name}" is already in tools.${first}: the allow, gated and blocked lists must not share a tool` });
      else seen.set(name, list);
    });
  }
}

/** `[tools]`: the three lists must not share a name. */
export const ToolPolicySchema = z.strictObject(policyLists).superRefine(checkToolListsApart).prefault({});

const envTable = z.record(z.string().regex(ENV_KEY_PATTERN, { message: 'expected an environment variable name' }), nulFreeString()).default({});

export const McpServerFileSchema = z
  .strictObject({
    id: z.string().regex(MCP_ID_PATTERN, { message: `expected a tool server id: ${MCP_ID_RULE}` }).optional(),
    name: z.string().max(200).default(''),
    description: z.string().max(2000).default(''),
    spec: z.string().max(2000).default(''),
    transport: z.enum(MCP_TRANSPORTS),
    command: nulFreeString().default(''),
    args: z.array(nulFreeString()).default([]),
    url: z.union([z.literal(''), httpUrl()]).default(''),
    env: envTable,
    /** ENV_NAME = key in api.env. */
    secrets: z.record(z.string().regex(ENV_KEY_PATTERN, { message: 'expected an environment variable name' }), envVarName()).default({}),
    tools: ToolPolicySchema,
    enabled: z.boolean().default(true),
    installed_at: z.string().default(''),
    source_url: z.string().default(''),
  })
  .superRefine((record, ctx) => {
    if (record.transport === 'stdio' && record.command.trim() === '') {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'a stdio tool server needs the command that starts it' });
    }
    if (record.transport !== 'stdio' && record.url === '') {
      ctx.addIssue({ code: 'custom', path: ['url'], message: `a ${record.transport} tool server needs its url` });
    }
  });

/** A bundled server's file holds only its tool policy (the server itself is the gateway's). */
export const BundledServerFileSchema = z.strictObject({ tools: ToolPolicySchema });

