// `omni: true` on /v1/chat/completions: the tool loop on the server (docs/omni.md).
// planOmni decides whether it runs (a target that can call tools, and a tool to offer);
// runOmni calls the model, runs the tool calls it asks for in parallel, feeds the results
// back and repeats, up to [mcp].max_rounds, streaming every round to the client as it
// happens when the client streams. A call to a client's own tool ends the loop: the client
// gets that round's answer as usual.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { ResolvedConfig } from '../config/load.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { endWithError, sseErrorEvent } from '../dispatch/forward.js';
import type { ImageDeps } from '../dispatch/images/generate.js';
import type { DispatchTarget } from '../dispatch/types.js';
import type { ToolCaller, ToolHost } from '../mcp/tool-host.js';
import { SvcError } from '../protocol/errors.js';
import type { SvcOmniSummary } from '../protocol/mcp.js';
import { canCallTools, type TemplateCache, toolCallingInput } from './capability.js';
import { offeredModalityTools } from './modality-tools.js';
import { callModel, type RoundResult } from './round.js';
import { omniSettings } from './settings.js';
import { OmniStream } from './stream.js';
import { Toolbox } from './toolbox.js';

export interface OmniDeps {
  dispatcher: Pick<Dispatcher, 'dispatch' | 'resolve' | 'candidates'>;
  /** What generate_image uses, as the image route does (the server context). */
  images: ImageDeps;
  config: ResolvedConfig;
  tools: ToolHost | undefined;
  templates: TemplateCache;
  /** The chat body for a target (the route's own rules: model id, the slot's thinking default). */
  body(chat: Record<string, unknown>, upstreamModel: string, target: DispatchTarget): string;
}

export interface OmniPlan {
  toolbox: Toolbox;
  maxRounds: number;
  id: string;
}

/** Null when the loop has nothing to do: the target cannot call tools, or no tool is offered. */
export async function planOmni(deps: OmniDeps, model: string, caller: Omit<ToolCaller, 'client'>, clientTools: unknown): Promise<OmniPlan | null> {
  const target = await deps.dispatcher.resolve(model, 'chat');
  if (!canCallTools(await toolCallingInput(deps.config, target, deps.templates))) return null;
  const id = `chatcmpl-omni-${randomUUID().replace(/-/g, '')}`;
  const settings = omniSettings(deps.config);
  const fullCaller = { ...caller, client: `omni:${id}` };
  const served = deps.tools ? await deps.tools.offered(fullCaller) : [];
  const clientNames = new Set((Array.isArray(clientTools) ? clientTools : []).map((t) => (t as { function?: { name?: string } })?.function?.name).filter((n): n is string => typeof n === 'string'));
  const toolbox = new Toolbox(deps.tools, { dispatcher: deps.dispatcher, images: deps.images }, fullCaller, settings.toolTimeoutMs, served, offeredModalityTools(deps.dispatcher.candidates()), clientNames);
  return toolbox.size === 0 ? null : { toolbox, maxRounds: settings.maxRounds, id };
}

export async function runOmni(deps: OmniDeps, plan: OmniPlan, model: string, body: Record<string, unknown>, res: ServerResponse): Promise<void> {
  const streaming = body.stream === true;
  const stream = streaming ? new OmniStream(res, plan.id) : undefined;
  const controller = new AbortController();
  res.on('close', () => res.writableEnded || controller.abort());
  const messages = [...((body.messages as unknown[]) ?? [])];
  const tools = [...(Array.isArray(body.tools) ? body.tools : []), ...plan.toolbox.definitions()];
  const summary: SvcOmniSummary = { rounds: 0, tool_calls: [] };
  try {
    for (let round = 1; round <= plan.maxRounds; round++) {
      summary.rounds = round;
      // A forced choice (required, or one function) is for the first round: forced again, the model could never answer.
      const toolChoice = round === 1 ? body.tool_choice : body.tool_choice === 'none' ? 'none' : undefined;
      const chat = { ...body, messages, tools, tool_choice: toolChoice };
      const result = await callModel({ dispatcher: deps.dispatcher, model, stream, signal: controller.signal, body: (upstreamModel, target) => deps.body(chat, upstreamModel, target) });
      if (!result.ok) return relayError(res, result, stream);
      const calls = result.message.tool_calls ?? [];
      if (calls.length === 0 || calls.some((c) => plan.toolbox.isClients(c.function.name))) return finish(res, stream, result, summary, plan.id);
      stream?.endRound(false);
      messages.push(result.message);
      const outcomes = await Promise.all(calls.map((call) => plan.toolbox.run(call, controller.signal, (delta) => stream?.tool(delta))));
      for (const outcome of outcomes) {
        messages.push(outcome.message);
        summary.tool_calls.push({ name: outcome.name, ms: outcome.ms, ok: outcome.ok });
      }
    }
    throw new SvcError('omni.max_rounds', `the model still asked for tools after ${plan.maxRounds} rounds ([mcp].max_rounds)`, { rounds: summary.rounds, tool_calls: summary.tool_calls });
  } catch (error) {
    if (controller.signal.aborted) return; // the client left: everything was aborted with it
    if (!res.headersSent && !stream?.isOpen) throw error; // the front door renders it
    endWithError(res, error instanceof SvcError ? error : new SvcError('system.internal', String(error)), true);
  }
}

function finish(res: ServerResponse, stream: OmniStream | undefined, result: Extract<RoundResult, { ok: true }>, summary: SvcOmniSummary, id: string): void {
  if (stream) {
    stream.endRound(true);
    stream.done();
    return;
  }
  const completion = { ...result.completion, id, svc_omni: summary };
  const text = JSON.stringify(completion);
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The model's error: as the engine answered it before anything was sent, else one SSE error event. */
function relayError(res: ServerResponse, result: Extract<RoundResult, { ok: false }>, stream: OmniStream | undefined): void {
  if (!res.headersSent) {
    const type = result.headers['content-type'];
    res.writeHead(result.status, { 'content-type': typeof type === 'string' ? type : 'application/json; charset=utf-8' });
    res.end(result.body);
    return;
  }
  const envelope = result.envelope ?? { error: { code: 'upstream.error', message: result.body.toString('utf8').slice(0, 300), details: {} } };
  if (stream) res.write(sseErrorEvent(envelope));
  res.end();
}
