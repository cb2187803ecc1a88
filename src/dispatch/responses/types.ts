// The shapes this folder trades in: OpenAI's Responses API objects kept as plain JSON
// records (the route stores and sends them as they are), and the few interfaces the
// /v1/responses route codes against. Our own minimal types, not the openai package's: svc
// does not depend on the client library at run time.

export type Json = Record<string, unknown>;

/** One conversation item as stored and as listed by GET /v1/responses/{id}/input_items (each with an `id`). */
export type ResponseItem = Record<string, unknown> & { id: string; type: string };

export interface ChatPlan {
  /** The chat completions body, WITHOUT `model` and `stream`/`stream_options` (the route adds those). */
  chat: Json;
  /** This turn's input as items (a string input becomes one user message item), ids assigned (msg_..., fc_..., fco_...). */
  input: ResponseItem[];
  /** What the Response object echoes back: instructions, tools, tool_choice, text, temperature, top_p, ... (defaults as OpenAI gives them). */
  echo: Json;
  /** reasoning.effort as a boolean (null = not asked): chat_template_kwargs.enable_thinking for a slot, reasoning_effort for a remote upstream. */
  enableThinking: boolean | null;
}

export interface ResponseMeta {
  id: string;
  /** Unix seconds. */
  createdAt: number;
  model: string;
  echo: Json;
}

export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value at `key`, with null read as absent (OpenAI takes null for "default" almost everywhere). */
export const given = (body: Json, key: string): unknown => (body[key] === null ? undefined : body[key]);
