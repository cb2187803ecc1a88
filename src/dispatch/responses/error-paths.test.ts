import { describe, expect, it } from 'vitest';
import { renameErrorPaths, responsesPath } from './error-paths.js';

describe('error paths in Responses terms', () => {
  it('renames the chat fields a Responses client did not write', () => {
    expect(responsesPath('response_format.json_schema.schema.properties.age.multipleOf')).toBe('text.format.schema.properties.age.multipleOf');
    expect(responsesPath("'tools[2].function.parameters.type' is odd")).toBe("'tools[2].parameters.type' is odd");
    expect(responsesPath('tool_choice.function.name')).toBe('tool_choice.name');
    expect(responsesPath("'max_tokens' must be")).toBe("'max_output_tokens' must be");
    expect(responsesPath('messages[0].content')).toBe('messages[0].content');
  });

  it('rewrites the message and every problem path of an envelope, and leaves other bodies alone', () => {
    const body = JSON.stringify({ error: { code: 'request.invalid', message: "'response_format.json_schema.schema.x' no", details: { problems: [{ path: 'response_format.json_schema.schema.x', message: 'no' }] } } });
    expect(JSON.parse(renameErrorPaths(body))).toEqual({ error: { code: 'request.invalid', message: "'text.format.schema.x' no", details: { problems: [{ path: 'text.format.schema.x', message: 'no' }] } } });
    expect(renameErrorPaths('not json')).toBe('not json');
  });
});
