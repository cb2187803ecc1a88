// pi's wiring to this gateway, all in a configuration directory svc owns
// (PI_CODING_AGENT_DIR = <state>/agents/pi/config; pi's docs/models.md, settings.md, skills.md):
// models.json with one provider `svc` on the gateway's /v1 (0600: it holds the agent's token in
// auth mode), settings.json choosing it and keeping sessions in the data directory, a skill
// that teaches pi the `svc` CLI, and a launcher plus run.json for `svc agent run pi`.
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { writeFileAtomic } from '../../config/atomic.js';
import { quoteWord } from '../../lib/shell-words.js';
import { agentRunSpecPath } from '../../config/agent-paths.js';
import type { AgentRunSpec } from '../../protocol/agents.js';
import type { ModelList } from '../../protocol/v1-wire.js';
import type { AgentPaths, GatewayWiring } from '../driver.js';
import { SVC_SKILL } from './skill.js';

/** A key pi sends when auth is off: the gateway checks none then. Not a variable name pi would resolve. */
const NO_AUTH_KEY = 'svc-no-auth';
/** Answers longer than this are cut (pi asks for maxTokens; a small context is shared with the prompt). */
const MAX_ANSWER_TOKENS = 4096;

export const piConfigDir = (paths: AgentPaths) => join(paths.installDir, 'config');
export const piSessionsDir = (paths: AgentPaths) => join(paths.dataDir, 'sessions');
export const piLauncher = (paths: AgentPaths) => join(paths.installDir, 'bin', 'pi');

/**
 * What llama-server and the built-in engine need of an OpenAI client: a `system` role (no
 * `developer`), no reasoning_effort, no store, `max_tokens`, no `strict` in tools, and no
 * stream_options (the usage of a stream is not asked for).
 */
export const SVC_COMPAT = {
  supportsDeveloperRole: false,
  supportsReasoningEffort: false,
  supportsStore: false,
  supportsUsageInStreaming: false,
  supportsStrictMode: false,
  maxTokensField: 'max_tokens',
} as const;

interface PiModel { id: string; name: string; reasoning: boolean; input: string[]; contextWindow: number; maxTokens: number; cost: Record<string, number> }

/** The chat models with the context each slot runs with (from /v1/models; 8192 when it is not known). */
async function piModels(wiring: GatewayWiring): Promise<PiModel[]> {
  const contexts = new Map<string, number | null>();
  try {
    const answer = await request(`${wiring.v1Url}/models`, { headersTimeout: 30_000, bodyTimeout: 30_000 });
    const list = (await answer.body.json()) as ModelList;
    for (const m of list.data ?? []) contexts.set(m.id, 'context_length' in m ? m.context_length : null);
  } catch {
    // the ids alone will do
  }
  return wiring.chatModels.map((id) => {
    const contextWindow = contexts.get(id) ?? 8192;
    return { id, name: id, reasoning: false, input: ['text'], contextWindow, maxTokens: Math.max(16, Math.min(MAX_ANSWER_TOKENS, Math.floor(contextWindow / 2))), cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
  });
}

export function modelsJson(wiring: GatewayWiring, models: PiModel[]): string {
  const provider = {
    baseUrl: wiring.v1Url, api: 'openai-completions', apiKey: wiring.token ?? NO_AUTH_KEY,
    headers: { 'X-Svc-Agent': 'pi' }, compat: SVC_COMPAT, models,
  };
  return `${JSON.stringify({ providers: { svc: provider } }, null, 2)}\n`;
}

/** Writes the whole configuration directory, the launcher and run.json (again on each install, upgrade, repair). */
export async function writePiWiring(paths: AgentPaths, wiring: GatewayWiring, cliPath: string): Promise<{ models: string[] }> {
  const config = piConfigDir(paths);
  await mkdir(join(config, 'skills', 'svc'), { recursive: true });
  await mkdir(piSessionsDir(paths), { recursive: true });
  const models = await piModels(wiring);
  await writeFileAtomic(join(config, 'models.json'), modelsJson(wiring, models), { mode: 0o600, forceMode: true });
  const settings = { defaultProvider: 'svc', ...(models[0] && { defaultModel: models[0].id }), sessionDir: piSessionsDir(paths) };
  await writeFileAtomic(join(config, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  await writeFileAtomic(join(config, 'skills', 'svc', 'SKILL.md'), SVC_SKILL(wiring.apiUrl));
  const env = { PI_CODING_AGENT_DIR: config };
  const run: AgentRunSpec = { command: process.execPath, args: [cliPath], env };
  await writeFileAtomic(agentRunSpecPath(paths), `${JSON.stringify(run, null, 2)}\n`);
  await mkdir(join(paths.installDir, 'bin'), { recursive: true });
  const launcher = `#!/bin/sh\n# pi wired to svc (svc agent install pi): its configuration is svc's, in ${config}\nPI_CODING_AGENT_DIR=${quoteWord(config)} exec ${quoteWord(process.execPath)} ${quoteWord(cliPath)} "$@"\n`;
  await writeFileAtomic(piLauncher(paths), launcher, { mode: 0o755 });
  await chmod(piLauncher(paths), 0o755);
  return { models: models.map((m) => m.id) };
}

