// An engine refuses the chat completion svc made from a Responses request, and names the
// field by its chat name (the built-in engine's `response_format.json_schema.schema.age`).
// The client sent a Responses body, so the path it is shown is the field it wrote.
const RENAMES: ReadonlyArray<[RegExp, string]> = [
  [/\bresponse_format\.json_schema\.schema\b/g, 'text.format.schema'],
  [/\bresponse_format\b/g, 'text.format'],
  [/\btools\[(\d+)\]\.function\./g, 'tools[$1].'],
  [/\btool_choice\.function\.name\b/g, 'tool_choice.name'],
  [/\bmax_(?:completion_)?tokens\b/g, 'max_output_tokens'],
];

export function responsesPath(text: string): string {
  return RENAMES.reduce((out, [pattern, to]) => out.replace(pattern, to), text);
}

/** The envelope of an error answer with chat field names turned into Responses ones (anything else unchanged). */
export function renameErrorPaths(body: string): string {
  let envelope: { error?: { message?: unknown; details?: { problems?: Array<{ path?: unknown }> } } };
  try {
    envelope = JSON.parse(body);
  } catch {
    return body;
  }
  const error = envelope.error;
  if (!error || typeof error !== 'object') return body;
  if (typeof error.message === 'string') error.message = responsesPath(error.message);
  for (const problem of error.details?.problems ?? []) if (typeof problem.path === 'string') problem.path = responsesPath(problem.path);
  return JSON.stringify(envelope);
}
