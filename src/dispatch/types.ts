// The dispatcher's vocabulary: which /v1 route a request came in on, what the resolver
// knows about slots and remote upstreams, and what it decides.
import type { SlotType } from '../config/schema/common.js';
import type { ClientGone } from './client-gone.js';
import type { DispatchResult } from './result.js';
import type { ExchangeTiming } from './server-timing.js';

export type V1Route = 'chat' | 'completions' | 'embeddings' | 'rerank' | 'transcriptions' | 'speech' | 'images';

/** The slot types each route can be served by. */
export const ROUTE_SLOT_TYPES: Readonly<Record<V1Route, readonly SlotType[]>> = {
  chat: ['llm'],
  completions: ['llm'],
  embeddings: ['embedding'],
  rerank: ['reranking'],
  transcriptions: ['transcription'],
  speech: ['tts'],
  images: ['image'],
};

/** What resolution needs to know about one slot (from config and the supervisor). */
export interface SlotCandidate {
  name: string;
  type: SlotType;
  /** Explicit [slot].role, or null (the slot name then acts as its role). */
  role: string | null;
  device: string;
  enabled: boolean;
  /** Supervisor state; 'disabled' for disabled slots. */
  state: 'stopped' | 'starting' | 'warming' | 'ready' | 'stopping' | 'error' | 'disabled';
  /**
   * Its last start failed and nothing started it since (a stopped slot with a last_error,
   * or one whose start a request saw fail, e.g. a missing engine binary): ranked with
   * slots in error, after every slot that can start.
   */
  failed?: boolean;
  /** The model id the slot serves (running model, else its configured default). */
  modelId: string;
  /** Context window, when known, for /v1/models. */
  contextLength: number | null;
  /** [npu].embed / [npu].asr: what an NPU llm slot's engine serves besides chat (src/config/npu.ts). */
  npu?: { embed: boolean; asr: boolean };
  /** Capabilities capabilities.toml selects this slot for (enabled selections only). */
  capabilities?: readonly string[];
}

/** A remote OpenAI-compatible endpoint and the model ids it is known to serve. */
export interface UpstreamCatalog {
  name: string;
  modelIds: readonly string[];
}

export type Resolution =
  /** `model` is what to send upstream (slot names and aliases are rewritten to the model id). */
  | { kind: 'slot'; slot: string; model: string; via: 'slot-name' | 'role' | 'virtual' | 'model-id' | 'npu-direct' }
  | { kind: 'upstream'; upstream: string; model: string }
  | { kind: 'wrong_type'; slot: string; slotType: SlotType; route: V1Route; accepts: readonly SlotType[] }
  /** Nothing else serves `model`, but a disabled slot would: by name, `svc/<name>`, or model id. */
  | { kind: 'disabled'; slot: string }
  | { kind: 'not_found'; candidates: string[] };

/** Virtual names resolved live to a role or a slot type (docs/routing.md). */
export const VIRTUAL_PREFIX = 'svc/';

/** A resolution that names where to send the request. */
export type DispatchTarget = Extract<Resolution, { kind: 'slot' | 'upstream' }>;

/** Another svc gateway a replica set chose (src/peers): where its /v1 is and what to send it. */
export interface PeerTarget {
  kind: 'peer';
  peer: string;
  model: string;
  origin: string;
  /** The peer's base path (empty at its root); /v1 and the route's path follow. */
  basePath: string;
  /** Its token and the hop header: never log them. */
  headers: Record<string, string>;
}

/** Anything forward() sends to. */
export type ForwardTarget = DispatchTarget | PeerTarget;

/** What tells the dispatcher that its caller gave up: an AbortSignal, or the front door's cheaper ClientGone. */
export type CallerGone = AbortSignal | ClientGone;

/**
 * One request to the dispatcher, from the /v1 front door or an in-process caller (the omni
 * loop, memory, the Responses translation): the model and route kind, and how to send it.
 */
export interface DispatchRequest extends Forwarded {
  /** The model asked for: a slot name, a model id, a svc/* name, or a remote model. */
  model: string;
  route: V1Route;
  /** Aborts the upstream request (and a slot start made for it) when the caller leaves. */
  signal?: CallerGone;
  /** Marks for the Server-Timing header (server-timing.ts); absent, no header. */
  timing?: ExchangeTiming;
}

/** How a request is sent, whichever target serves it. */
export interface Forwarded {
  /** The engine path under /v1, e.g. `/audio/speech` (a remote upstream's base path goes first). */
  upstreamPath: string;
  /** The request's Content-Type, sent as it is (a multipart boundary included). */
  contentType: string;
  /** Content-Types a 2xx answer may have (others are dispatch.upstream_bad_response); undefined = any. */
  accepts?: RegExp;
  /** Whether the client asked for a stream (SSE keep-alive while a slot loads, final error event). */
  stream: boolean;
  /**
   * The bytes to send, given the model id the target expects (a slot's backing model id, or
   * an upstream's id with any provider model_prefix removed) and the target itself (the
   * one resolved, or the twin that serves in its place). Called once the slot is ready.
   */
  body(upstreamModel: string, target: ForwardTarget): string | Buffer;
  /** It arrived with the peer hop header (src/peers/hop.ts): never forwarded to a peer. */
  fromPeer?: boolean;
  /** Whether a replica can take this request (e.g. /v1/responses passed through); absent = every replica. */
  serves?: (target: ForwardTarget) => boolean;
  /**
   * For a target whose 2xx JSON answer the route must change before the client sees it (an
   * image a peer made, moved into this gateway's cache), the change; the answer is then read
   * whole instead of streamed. Absent, or undefined for a target: relayed as it comes.
   */
  rewriteAnswer?: (target: ForwardTarget) => ((answer: unknown) => Promise<unknown>) | undefined;
  /**
   * A route that drives its own slots (images: a ComfyUI workflow, not an OpenAI request): how
   * this gateway's target is found (instead of resolve) and how one of its slots answers
   * (instead of forward). Replicas elsewhere are still forwarded to. Used with peers only.
   */
  local?: {
    resolve(): Promise<DispatchTarget>;
    serveSlot(target: Extract<DispatchTarget, { kind: 'slot' }>): Promise<DispatchResult>;
  };
}
