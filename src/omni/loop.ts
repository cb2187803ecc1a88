// `omni: true` on /v1/chat/completions: the tool loop on the server (docs/omni.md).
// planOmni decides whether it runs (a target that can call tools, and a tool to offer);
// runOmni calls the model, runs the tool calls it asks for in parallel, feeds the results
// back and repeats, up to [mcp].max_rounds, streaming every round to the client as it
// happens when the client streams. A call to a client's own tool ends the loop: the client
// gets that round's answer as usual.
import { randomUUID } from 'node:crypto';
import type { ResolvedConfig } from '../config/load.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { sseErrorEvent } from '../dispatch/forward.js';
import { type DispatchResult, jsonResult } from '../dispatch/result.js';
import type { ImageDeps } from '../dispatch/images/generate.js';
import type { DispatchTarget } from '../dispatch/types.js';
import type { ToolCaller, ToolHost } from '../mcp/tool-host.js';
import { SvcError } from '../protocol/errors.js';
import type { SvcOmniSummary } from '../protocol/mcp.js';
import type { TemplateCache } from '../engines/tool-calling.js';
import { canCallTools, toolCallingInput } from './capability.js';
import { offeredModalityTools } from './modality-tools.js';
import { callModel, type RoundResult } from './round.js';
import { omniSettings } from './settings.js';
import { OmniStream, Outbox } from './stream.js';
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

/** The SSE head of a streaming loop's answer. */
const SSE_HEAD = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

/**
 * Run the loop; its answer as a result (dispatch/result.ts). A streaming client's result
 * comes as soon as the first round's first bytes are there (its body then carries every
 * round as it happens); a first round that fails before that is answered as the engine
 * answered it. `signal`: the client left, and every call of the loop is aborted with it.
 */
export async function runOmni(deps: OmniDeps, plan: OmniPlan, model: string, body: Record<string, unknown>, signal: AbortSignal): Promise<DispatchResult> {
  const controller = new AbortController();
  signal.addEventListener('abort', () => controller.abort(), { once: true });
  if (body.stream !== true) {
    const outcome = await rounds(deps, plan, model, body, controller.signal, undefined);
    return outcome.kind === 'error' ? roundError(outcome.result) : jsonResult(200, { ...outcome.result.completion, id: plan.id, svc_omni: outcome.summary });
  }
  const outbox = new Outbox(() => controller.abort());
  let opened!: () => void;
  const open = new Promise<undefined>((resolve) => (opened = () => resolve(undefined)));
  const stream = new OmniStream(outbox, plan.id, opened);
  const run = streamRounds(deps, plan, model, body, controller.signal, stream);
  run.catch(() => undefined); // after the head a failure is the stream's last event (streamRounds)
  const early = await Promise.race([open, run]);
  return early ?? { status: 200, headers: { ...SSE_HEAD }, body: outbox };
}

/** The streaming loop: the error result when it failed before the stream opened, else undefined (the stream ended). */
async function streamRounds(deps: OmniDeps, plan: OmniPlan, model: string, body: Record<string, unknown>, signal: AbortSignal, stream: OmniStream): Promise<DispatchResult | undefined> {
  try {
    const outcome = await rounds(deps, plan, model, body, signal, stream);
    if (outcome.kind === 'ok') {
      stream.endRound(true);
      stream.done();
      return undefined;
    }
    if (!stream.isOpen) return roundError(outcome.result);
    const { envelope, body: bytes } = outcome.result;
    stream.fail(sseErrorEvent(envelope ?? { error: { code: 'upstream.error', message: bytes.toString('utf8').slice(0, 300), details: {} } }));
    return undefined;
  } catch (error) {
    if (!stream.isOpen && !signal.aborted) throw error; // the front door renders it
    stream.fail(sseErrorEvent((error instanceof SvcError ? error : new SvcError('system.internal', String(error))).toEnvelope()));
    return undefined;
  }
}

type RoundsOutcome =
  | { kind: 'ok'; result: Extract<RoundResult, { ok: true }>; summary: SvcOmniSummary }
  | { kind: 'error'; result: Extract<RoundResult, { ok: false }> };

/** Call the model, run the tools it asks for, feed the results back; until it answers, or max_rounds. */
async function rounds(deps: OmniDeps, plan: OmniPlan, model: string, body: Record<string, unknown>, signal: AbortSignal, stream: OmniStream | undefined): Promise<RoundsOutcome> {
  const messages = [...((body.messages as unknown[]) ?? [])];
  const tools = [...(Array.isArray(body.tools) ? body.tools : []), ...plan.toolbox.definitions()];
  const summary: SvcOmniSummary = { rounds: 0, tool_calls: [] };
  for (let round = 1; round <= plan.maxRounds; round++) {
    summary.rounds = round;
    // A forced choice (required, or one function) is for the first round: forced again, the model could never answer.
    const toolChoice = round === 1 ? body.tool_choice : body.tool_choice === 'none' ? 'none' : undefined;
    const chat = { ...body, messages, tools, tool_choice: toolChoice };
    const result = await callModel({ dispatcher: deps.dispatcher, model, stream, signal, body: (upstreamModel, target) => deps.body(chat, upstreamModel, target) });
    if (!result.ok) return { kind: 'error', result };
    const calls = result.message.tool_calls ?? [];
    if (calls.length === 0 || calls.some((c) => plan.toolbox.isClients(c.function.name))) return { kind: 'ok', result, summary };
    stream?.endRound(false);
    messages.push(result.message);
    const outcomes = await Promise.all(calls.map((call) => plan.toolbox.run(call, signal, (delta) => stream?.tool(delta))));
    for (const outcome of outcomes) {
      messages.push(outcome.message);
      summary.tool_calls.push({ name: outcome.name, ms: outcome.ms, ok: outcome.ok });
    }
  }
  throw new SvcError('omni.max_rounds', `the model still asked for tools after ${plan.maxRounds} rounds ([mcp].max_rounds)`, { rounds: summary.rounds, tool_calls: summary.tool_calls });
}

/** The model's error answer, as the engine answered it (nothing went to the client yet). */
function roundError(result: Extract<RoundResult, { ok: false }>): DispatchResult {
  const type = result.headers['content-type'];
  return { status: result.status, headers: { 'content-type': typeof type === 'string' ? type : 'application/json; charset=utf-8' }, body: result.body, ...(result.envelope && { envelope: result.envelope }) };
}
