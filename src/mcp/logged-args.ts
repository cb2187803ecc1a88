// What an agent's tool call keeps of its arguments in the activity log (action mcp.tool_call,
// read back by GET /api/agents/<name>/activity): the arguments that carry content the agent
// stores (memory_add's `text` and `metadata`, and the same names of any tool) stay out,
// because the log is readable by anyone with read access and outlives a private memory.
// The row still says they were there, and how long the text was.

const CONTENT_ARGS = ['text', 'metadata'] as const;

export function loggedArgs(args: Record<string, unknown>): { args: Record<string, unknown>; omitted?: Record<string, string> } {
  const present = CONTENT_ARGS.filter((key) => Object.hasOwn(args, key));
  if (present.length === 0) return { args };
  const kept = Object.fromEntries(Object.entries(args).filter(([key]) => !(CONTENT_ARGS as readonly string[]).includes(key)));
  const omitted = Object.fromEntries(present.map((key) => [key, describe(args[key])]));
  return { args: kept, omitted };
}

/** What is said of an omitted value instead of the value. */
function describe(value: unknown): string {
  if (typeof value === 'string') return `${value.length} characters`;
  if (Array.isArray(value)) return `${value.length} items`;
  if (value !== null && typeof value === 'object') return `${Object.keys(value).length} keys`;
  return typeof value;
}
