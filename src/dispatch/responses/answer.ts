// One (non-streamed) chat completion as a Response object. Output items in the order a
// model produces them: its reasoning, its text, then one function_call per tool call (the
// call id the engine gave is the call_id the client answers with function_call_output).
// A choice cut short by max_tokens makes the response incomplete, and its message too (and a
// function call whose arguments it cut).
import { newItemId } from './ids.js';
import { argumentsText, callStatus, contentText, functionCallItem, logprobsOf, messageItem, outcomeOf, outputTextPart, reasoningItem, reasoningTextPart, reasoningText, responseObject, usageOf } from './output.js';
import { isObject, type Json, type ResponseMeta } from './types.js';

export function responseFromChat(meta: ResponseMeta, chat: Json): Json {
  const choices = Array.isArray(chat.choices) ? chat.choices.filter(isObject) : [];
  const choice = choices.find((c) => c.index === 0) ?? choices[0] ?? {};
  const message = isObject(choice.message) ? choice.message : {};
  const outcome = outcomeOf(choice.finish_reason);
  const output: Json[] = [];

  const reasoning = reasoningText(message);
  if (reasoning) output.push(reasoningItem(newItemId('rs'), [reasoningTextPart(reasoning)]));
  const text = contentText(message.content);
  if (text) output.push(messageItem(newItemId('msg'), outcome.status, [outputTextPart(text, logprobsOf(choice.logprobs))]));
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : [];
  for (const call of calls.map(toolCallOf)) output.push(functionCallItem(newItemId('fc'), callStatus(outcome, call.arguments), call));

  return responseObject(meta, { status: outcome.status, incompleteDetails: outcome.incompleteDetails, output, usage: usageOf(chat.usage) });
}

function toolCallOf(call: Json): { callId: string; name: string; arguments: string } {
  const fn = isObject(call.function) ? call.function : {};
  return {
    callId: typeof call.id === 'string' && call.id !== '' ? call.id : newItemId('call'),
    name: typeof fn.name === 'string' ? fn.name : '',
    arguments: argumentsText(fn.arguments) || '{}',
  };
}
