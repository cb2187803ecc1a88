// The loop without processes: the dispatcher's one entry answers in process (the model's
// rounds, and the embedding the embed_text tool asks for), so what the loop sends and
// answers can be read whole.
import { describe, expect, it } from 'vitest';
import { jsonResult, readBody, type DispatchResult } from '../dispatch/result.js';
import type { DispatchRequest } from '../dispatch/types.js';
import { type OmniDeps, type OmniPlan, runOmni } from './loop.js';
import { MODALITY_TOOLS } from './modality-tools.js';
import { Toolbox } from './toolbox.js';

const slotTarget = { kind: 'slot' as const, slot: 's', model: 'm', via: 'slot-name' as const };
const toolCall = { id: 'c1', type: 'function', function: { name: 'embed_text', arguments: '{"text":"hi"}' } };
const completion = (message: Record<string, unknown>) => ({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }] });

/** A dispatcher whose model asks for embed_text once and then answers; every request it got, as sent. */
function inProcess(answers: Array<(request: DispatchRequest, body: Record<string, unknown>) => DispatchResult>) {
  const seen: Array<{ route: string; body: Record<string, unknown> }> = [];
  const dispatcher: OmniDeps['dispatcher'] = {
    dispatch: async (request) => {
      const body = JSON.parse(String(request.body('m', slotTarget))) as Record<string, unknown>;
      seen.push({ route: request.route, body });
      if (request.route === 'embeddings') return jsonResult(200, { data: [{ embedding: [0.5, 0.25] }] });
      return answers.shift()!(request, body);
    },
    resolve: async () => slotTarget,
    candidates: () => [],
  };
  return { dispatcher, seen };
}

function planFor(dispatcher: OmniDeps['dispatcher'], maxRounds = 3): { deps: OmniDeps; plan: OmniPlan } {
  const embed = MODALITY_TOOLS.filter((t) => t.name === 'embed_text');
  const toolbox = new Toolbox(undefined, { dispatcher, images: undefined as never }, { scope: null, client: 'omni:test' }, 5000, [], embed, new Set());
  const deps = { dispatcher, images: undefined as never, config: undefined as never, tools: undefined, templates: undefined as never, body: (chat: Record<string, unknown>, model: string) => JSON.stringify({ ...chat, model }) };
  return { deps, plan: { toolbox, maxRounds, id: 'chatcmpl-omni-test' } };
}

describe('runOmni', () => {
  it('runs the tool the model asks for through the same entry and feeds its result back, then answers with svc_omni', async () => {
    const { dispatcher, seen } = inProcess([
      () => jsonResult(200, completion({ content: null, tool_calls: [toolCall] })),
      () => jsonResult(200, completion({ content: 'done' })),
    ]);
    const { deps, plan } = planFor(dispatcher);
    const result = await runOmni(deps, plan, 'm', { messages: [{ role: 'user', content: 'embed hi' }] }, new AbortController().signal);
    const answer = JSON.parse((await readBody(result.body)).toString('utf8')) as { id: string; choices: Array<{ message: { content: string } }>; svc_omni: { rounds: number; tool_calls: Array<{ name: string; ok: boolean }> } };
    expect(result.status).toBe(200);
    expect(answer.id).toBe('chatcmpl-omni-test');
    expect(answer.choices[0]!.message.content).toBe('done');
    expect(answer.svc_omni.rounds).toBe(2);
    expect(answer.svc_omni.tool_calls.map((c) => [c.name, c.ok])).toEqual([['embed_text', true]]);
    expect(seen.map((s) => s.route)).toEqual(['chat', 'embeddings', 'chat']);
    const fedBack = (seen[2]!.body.messages as Array<{ role: string; content: string }>).at(-1)!;
    expect(fedBack.role).toBe('tool');
    expect(JSON.parse(fedBack.content)).toEqual({ dimensions: 2, first_values: [0.5, 0.25] });
  });

  it('answers the model\'s error as the engine gave it, before anything went out', async () => {
    const { dispatcher } = inProcess([() => jsonResult(429, { error: { code: 'upstream.rate_limited', message: 'slow down', details: {} } })]);
    const { deps, plan } = planFor(dispatcher);
    const result = await runOmni(deps, plan, 'm', { messages: [{ role: 'user', content: 'x' }] }, new AbortController().signal);
    expect(result.status).toBe(429);
    expect(JSON.parse((await readBody(result.body)).toString('utf8')).error.code).toBe('upstream.rate_limited');
  });

  it('ends with omni.max_rounds when the model still asks for tools after the last round', async () => {
    const again = () => jsonResult(200, completion({ content: null, tool_calls: [toolCall] }));
    const { dispatcher } = inProcess([again, again]);
    const { deps, plan } = planFor(dispatcher, 2);
    await expect(runOmni(deps, plan, 'm', { messages: [{ role: 'user', content: 'x' }] }, new AbortController().signal)).rejects.toMatchObject({ code: 'omni.max_rounds' });
  });
});
