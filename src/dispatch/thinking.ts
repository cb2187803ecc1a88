// A slot's reasoning default ([slot].enable_thinking: "Per-slot reasoning default;
// overridable per request"), sent the way llama-server and vLLM take it: as the chat
// template variable `chat_template_kwargs.enable_thinking`. Applied inside the /v1 chat
// handler's body builder, to the object it serializes anyway: no extra parse.
//   - The request's own choice wins: `chat_template_kwargs.enable_thinking`, or a top-level
//     boolean `enable_thinking` (what Qwen's own API takes), which is copied into
//     chat_template_kwargs since llama-server reads only that one.
//   - Otherwise a slot default of true or false is added; null adds nothing.
//   - Chat requests to slots only: a remote upstream gets the body as sent.

type Body = Record<string, unknown>;

const isObject = (value: unknown): value is Body => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body with the slot's reasoning default applied (the same object when nothing changes). */
export function withThinking(body: Body, slotDefault: boolean | null): Body {
  const kwargs = body.chat_template_kwargs;
  // A chat_template_kwargs that is not an object is the engine's to refuse.
  if (kwargs !== undefined && kwargs !== null && !isObject(kwargs)) return body;
  if (isObject(kwargs) && kwargs.enable_thinking !== undefined) return body;
  const own = typeof body.enable_thinking === 'boolean' ? body.enable_thinking : null;
  const value = own ?? slotDefault;
  if (value === null) return body;
  return { ...body, chat_template_kwargs: { ...(isObject(kwargs) ? kwargs : {}), enable_thinking: value } };
}
