// The three personas every hermes home starts with (docs/agents.md, "Personas": hermes, coder and the
// spec's hal0-brain, named svc-brain here). Written by the persona_seed phase only where the
// file is missing: a persona the user edited is theirs.
import { stringify } from 'smol-toml';
import type { Persona } from './persona-schema.js';

const approval = (policy: 'ask' | 'auto-approve' | 'never') => ({
  default_policy: policy,
  auto_approve: ['memory.read.*', 'search.*', 'slot.read.*'],
  require_approval: ['files.*', 'shell.*', 'admin.*'],
});

export const SEED_PERSONAS: readonly Persona[] = [
  {
    id: 'hermes', display_name: 'Hermes', summary: 'The general assistant: answers, remembers and uses the gateway tools with approval.',
    prompt: { system: 'You are Hermes, an assistant running on this svc gateway. Use its tools (svc-admin, svc-memory) when they help; ask before anything that changes the host.' },
    tools: { allowed: ['*'] }, memory: { namespace: 'shared' }, approval: approval('ask'),
    model: { preferred_upstream: 'svc', preferred_model: '' }, budget: { hard_cap: true },
  },
  {
    id: 'coder', display_name: 'Coder', summary: 'A coding persona: reads and writes files in its workspace, runs commands after approval.',
    prompt: { system: 'You are a careful software engineer. Read before you write, keep changes small, and explain what you ran.' },
    tools: { allowed: ['*'] }, memory: { namespace: 'private:hermes' }, approval: approval('ask'),
    model: { preferred_upstream: 'svc', preferred_model: '' }, budget: { hard_cap: true },
  },
  {
    id: 'svc-brain', display_name: 'svc brain', summary: "The gateway's own operator: watches slots, models and memory and proposes changes.",
    prompt: { system: 'You operate this svc gateway. Inspect slots, models and memory with the read tools; propose changes and wait for approval before making them.' },
    tools: { allowed: ['*'] }, memory: { namespace: 'shared' }, approval: approval('ask'),
    model: { preferred_upstream: 'svc', preferred_model: '' }, budget: { hard_cap: true },
  },
];

/** A persona as its TOML file. */
export function personaToml(persona: Persona): string {
  return `# svc persona (docs/agents.md, "Personas")\n${stringify({ persona })}\n`;
}
