// /v1/responses for targets that speak chat completions: the pure translation layer.
// planChat reads a Responses body into a chat body; responseFromChat and ResponsesStream
// turn the chat answer (whole or streamed) back into a Response object or its events.
export { responseFromChat } from './answer.js';
export { newItemId, newResponseId } from './ids.js';
export type { FindItem } from './input.js';
export { planChat } from './request.js';
export { ResponsesStream } from './stream.js';
export type { ChatPlan, ResponseItem, ResponseMeta } from './types.js';
