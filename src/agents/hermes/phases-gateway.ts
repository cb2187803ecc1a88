// The phases that talk to the gateway: the identity card in memory (namespace_register), the
// default chat model from /v1/models (model_automap), the voice slots (voice_wire), a real
// chat through the runtime (smoke_tests) and the runtime's own report (self_report).
import { join } from 'node:path';
import { type PhaseContext, sha256 } from './phase-context.js';
import type { ModelEntryLite, PhaseOutcome } from './types.js';

export const AGENT_ID = 'hermes-agent';

/** Chat models: the llm slots' names (owned_by svc, with a display name), not the svc/* virtual names nor another slot's raw model id (`slot`). */
export function chatModels(entries: readonly ModelEntryLite[]): string[] {
  return entries.filter((e) => e.owned_by === 'svc' && typeof e.name === 'string' && !('_hal0' in e) && !('slot' in e)).map((e) => e.id);
}

export async function namespaceRegister(ctx: PhaseContext): Promise<PhaseOutcome> {
  if (!ctx.deps.memory) return { status: 'skip', reason: 'memory is off ([memory].enabled = false): no identity card' };
  const card = {
    text: `agent identity: ${AGENT_ID} (Hermes), the daemon agent of the svc gateway at ${ctx.deps.wiring.apiUrl}`,
    dataset: 'agents', tags: ['agent-identity'],
    metadata: { agent_id: AGENT_ID, display: 'Hermes', roles: ['assistant', 'daemon'], endpoint: ctx.deps.wiring.v1Url },
  };
  const hash = sha256(JSON.stringify(card));
  const before = ctx.previousOf();
  if (!ctx.options.repair && before?.hash === hash && (before.status === 'ok' || before.status === 'skip')) {
    return { status: 'skip', reason: 'registered', hash, details: before.details ?? {} };
  }
  if (ctx.options.dryRun) return { status: 'ok', hash, details: { would_register: card.metadata } };
  try {
    const added = await ctx.deps.memory.add({ ...card, metadata: { ...card.metadata, registered_at: new Date().toISOString() } });
    ctx.log(`identity card ${added.id} in dataset agents`);
    return { status: 'ok', hash, details: { memory_id: added.id, agent_id: AGENT_ID } };
  } catch (error) {
    return { status: 'fail', reason: `memory refused the identity card: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export async function modelAutomap(ctx: PhaseContext): Promise<PhaseOutcome> {
  const chat = chatModels(await ctx.deps.models());
  if (chat.length === 0) return { status: 'fail', reason: 'no chat model in /v1/models: add an llm slot (svc slot create) and run svc agent reprovision hermes' };
  const previous = ctx.previousOf()?.details?.model;
  const model = typeof previous === 'string' && chat.includes(previous) ? previous : chat[0]!;
  const runtime = { schema_version: 1, provider: 'svc', base_url: ctx.deps.wiring.v1Url, model, models: chat };
  return ctx.writeSet([{ path: join(ctx.home, 'runtime.json'), content: `${JSON.stringify(runtime, null, 2)}\n` }], { model, models: chat });
}

export async function voiceWire(ctx: PhaseContext): Promise<PhaseOutcome> {
  const { stt, tts } = ctx.deps.voiceSlots();
  if (!stt && !tts) return { status: 'skip', reason: 'no transcription or tts slot is enabled' };
  const voice = {
    stt: stt ? { base_url: ctx.deps.wiring.v1Url, model: stt } : null,
    tts: tts ? { base_url: ctx.deps.wiring.v1Url, model: tts } : null,
  };
  return ctx.writeSet([{ path: join(ctx.home, 'voice.json'), content: `${JSON.stringify(voice, null, 2)}\n` }], { stt, tts });
}

export async function smokeTests(ctx: PhaseContext): Promise<PhaseOutcome> {
  if (ctx.options.dryRun) return { status: 'skip', reason: 'dry run: no chat is sent' };
  const model = ctx.done.model_automap?.details?.model;
  if (typeof model !== 'string') return { status: 'skip', reason: 'no chat model (see model_automap)' };
  const run = await ctx.run(['chat', '--once', '--model', model, '--base-url', ctx.deps.wiring.v1Url, 'Reply with the word ok.'], {
    OPENAI_API_KEY: ctx.deps.wiring.token ?? 'svc-local-no-auth',
  });
  if (run.code !== 0) return { status: 'fail', reason: `hermes chat against ${ctx.deps.wiring.v1Url} failed (exit ${run.code}): ${run.stderr.trim().split('\n').slice(-3).join(' ')}`, details: { model } };
  return { status: 'ok', details: { model, reply: run.stdout.trim().slice(0, 200) } };
}

export async function selfReport(ctx: PhaseContext): Promise<PhaseOutcome> {
  const counts: Record<string, number> = {};
  for (const record of Object.values(ctx.done)) counts[record.status] = (counts[record.status] ?? 0) + 1;
  if (ctx.options.dryRun) return { status: 'skip', reason: 'dry run', details: { phases: counts } };
  const run = await ctx.run(['status', '--json']);
  if (run.code !== 0) return { status: 'fail', reason: `hermes status --json failed (exit ${run.code}): ${run.stderr.trim().split('\n').pop() ?? ''}`, details: { phases: counts } };
  let runtime: unknown = run.stdout.trim();
  try {
    runtime = JSON.parse(run.stdout);
  } catch {
    // a runtime that prints text: kept as text
  }
  return { status: 'ok', details: { phases: counts, runtime } };
}
