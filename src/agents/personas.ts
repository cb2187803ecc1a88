// Personas of a daemon agent (docs/agents.md, "Personas"): <home>/personas/<id>.toml validated with zod,
// and active.txt naming the active one, written atomically. Activating nudges the running
// agent to reload (JSON-RPC reload.env on its local websocket endpoint); a failed nudge is
// reported, never fatal: the file is the truth and the agent reads it on its next start.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { writeFileAtomic } from '../config/atomic.js';
import { SvcError } from '../protocol/errors.js';
import { personaToml } from './persona-seeds.js';

import { PERSONA_ID_PATTERN, PersonaSchema, type Persona, type PersonaBudget } from './persona-schema.js';

export { PERSONA_ID_PATTERN, PersonaBudgetSchema, PersonaSchema, type Persona, type PersonaBudget } from './persona-schema.js';
export const DEFAULT_RELOAD_URL = 'http://127.0.0.1:8765/api/ws';
const NUDGE_TIMEOUT_MS = 2_000;

export interface PersonaSummary { id: string; display_name: string; summary: string; active: boolean }
export interface ActivateResult {
  persona_id: string;
  display_name: string;
  active_path: string;
  hot_reload: { ok: boolean; error: string | null; url: string };
}

export const personasDir = (home: string) => join(home, 'personas');
export const activePath = (home: string) => join(personasDir(home), 'active.txt');

export function checkPersonaId(id: string): string {
  if (!PERSONA_ID_PATTERN.test(id)) throw new SvcError('agent.persona_invalid', `persona id "${id}" is not ${PERSONA_ID_PATTERN.source} (no dots or slashes)`, { persona: id });
  return id;
}

export async function readPersona(home: string, id: string): Promise<Persona> {
  const file = join(personasDir(home), `${checkPersonaId(id)}.toml`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new SvcError('agent.persona_not_found', `no persona "${id}" (${file})`, { persona: id });
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    throw new SvcError('config.invalid', `${file}: not valid TOML: ${(error as Error).message.split('\n')[0]}`, { problems: [{ file, path: '', message: 'not valid TOML' }] });
  }
  const result = PersonaSchema.safeParse((doc as { persona?: unknown }).persona);
  if (!result.success) {
    const problems = result.error.issues.map((i) => ({ file, path: ['persona', ...i.path].join('.'), message: i.message }));
    throw new SvcError('config.invalid', `${file}: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, { problems });
  }
  if (result.data.id !== id) throw new SvcError('config.invalid', `${file}: persona.id is "${result.data.id}", the file name says "${id}"`, { problems: [{ file, path: 'persona.id', message: 'differs from the file name' }] });
  return result.data;
}

export async function activePersonaId(home: string): Promise<string | null> {
  const text = await readFile(activePath(home), 'utf8').catch(() => '');
  const id = text.trim();
  return PERSONA_ID_PATTERN.test(id) ? id : null;
}

export async function listPersonas(home: string): Promise<{ personas: PersonaSummary[]; active: string | null }> {
  const names = await readdir(personasDir(home)).catch(() => [] as string[]);
  const active = await activePersonaId(home);
  const personas: PersonaSummary[] = [];
  for (const name of names.filter((n) => n.endsWith('.toml')).sort()) {
    const id = name.slice(0, -'.toml'.length);
    if (!PERSONA_ID_PATTERN.test(id)) continue;
    const persona = await readPersona(home, id).catch(() => null);
    if (persona) personas.push({ id, display_name: persona.display_name, summary: persona.summary, active: id === active });
  }
  return { personas, active };
}

/** The nudge: POST reload.env, 2 s; never throws. A redirect is not followed, and only the status of the answer is told. */
export async function nudgeReload(url: string): Promise<{ ok: boolean; error: string | null; url: string }> {
  try {
    const response = await fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'reload.env', params: {} }),
      signal: AbortSignal.timeout(NUDGE_TIMEOUT_MS),
      redirect: 'manual',
    });
    await response.arrayBuffer().catch(() => undefined);
    return response.ok ? { ok: true, error: null, url } : { ok: false, error: `HTTP ${response.status}`, url };
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : null;
    return { ok: false, error: cause ?? (error instanceof Error ? error.message : String(error)), url };
  }
}

export async function activatePersona(home: string, id: string, reloadUrl = DEFAULT_RELOAD_URL): Promise<ActivateResult> {
  const persona = await readPersona(home, id);
  const path = activePath(home);
  await writeFileAtomic(path, `${persona.id}\n`);
  return { persona_id: persona.id, display_name: persona.display_name, active_path: path, hot_reload: await nudgeReload(reloadUrl) };
}

export async function putBudget(home: string, id: string, budget: PersonaBudget): Promise<PersonaBudget> {
  const persona = await readPersona(home, id);
  await writeFileAtomic(join(personasDir(home), `${id}.toml`), personaToml({ ...persona, budget }));
  return budget;
}
