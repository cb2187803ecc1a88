import { describe, expect, it } from 'vitest';
import { curlId, docCurls, expected } from './doc-curls.js';

const fence = '```';

describe('docCurls', () => {
  it('reads a block without prompts: continuations joined, other commands left, the next block as the answer', () => {
    const md = [
      'Try it:',
      '',
      `${fence}sh`,
      'svc mcp list',
      "curl -s http://127.0.0.1:8080/v1/chat/completions -H 'content-type: application/json' \\",
      `     -d '{"model":"chat"}'`,
      fence,
      `${fence}json`,
      '{"id":"x","object":"chat.completion"}',
      fence,
    ].join('\n');
    expect(docCurls('README.md', md)).toEqual([{
      file: 'README.md',
      line: 5,
      command: `curl -s http://127.0.0.1:8080/v1/chat/completions -H 'content-type: application/json' -d '{"model":"chat"}'`,
      shown: '{"id":"x","object":"chat.completion"}',
      id: curlId('README.md', `curl -s http://127.0.0.1:8080/v1/chat/completions -H 'content-type: application/json' -d '{"model":"chat"}'`),
      inline: false,
    }]);
  });

  it('takes the lines after a prompted command as its answer, up to the next prompt', () => {
    const md = [fence, '$ curl -s -X DELETE http://h:1/api/slots/chat', '{"error":{"code":"slot.busy"}}', '', "$ curl -s -X DELETE 'http://h:1/api/slots/embed?force=true'", '{"deleted":"embed"}', fence].join('\n');
    expect(docCurls('docs/api.md', md).map((c) => [c.line, c.command, c.shown])).toEqual([
      [2, 'curl -s -X DELETE http://h:1/api/slots/chat', '{"error":{"code":"slot.busy"}}'],
      [5, "curl -s -X DELETE 'http://h:1/api/slots/embed?force=true'", '{"deleted":"embed"}'],
    ]);
  });

  it('shows no answer when prose stands between the command and the next block, or more commands follow it', () => {
    const md = [fence, 'curl -s http://h:1/a', 'svc status', fence, fence, 'curl -s http://h:1/b', fence, 'Prose.', fence, '{}', fence].join('\n');
    expect(docCurls('f.md', md).map((c) => c.shown)).toEqual(['', '']);
  });

  it('keeps a heredoc with its command and a pipeline whole', () => {
    const md = [fence, "curl -s http://h:1/v1/x -d @- <<'EOF'", '{"a": 1}', 'EOF', 'curl -s http://h:1/api/status | jq .version', fence].join('\n');
    expect(docCurls('f.md', md).map((c) => c.command)).toEqual([`curl -s http://h:1/v1/x -d @- <<'EOF'\n{"a": 1}\nEOF`, 'curl -s http://h:1/api/status | jq .version']);
  });

  it('reads inline commands that name where to, across a line break, and not mentions of a flag', () => {
    const md = ['Change it (`curl -X PUT http://127.0.0.1:8080/api/settings -d', `'{}'\`) or not; \`curl -X POST\` and \`curl -F\` are tools; also \`curl -X POST …/api/x\`.`].join('\n');
    expect(docCurls('f.md', md).map((c) => [c.line, c.command, c.inline])).toEqual([
      [1, "curl -X PUT http://127.0.0.1:8080/api/settings -d '{}'", true],
      [2, 'curl -X POST …/api/x', true],
    ]);
  });

  it('gives an id that survives rewrapping and changes with the command', () => {
    expect(curlId('f.md', 'curl -s http://h:1/a -d 1')).toMatch(/^f\.md#[0-9a-f]{8} curl -s http:\/\/h:1\/a -d 1$/);
    const wrapped = docCurls('f.md', [fence, 'curl -s \\', '  http://h:1/a -d 1', fence].join('\n'))[0]!;
    expect(wrapped.id).toBe(curlId('f.md', 'curl -s http://h:1/a -d 1'));
    expect(curlId('f.md', 'curl -s http://h:1/a -d 2')).not.toBe(wrapped.id);
  });
});

describe('expected', () => {
  it('reads an error envelope: its code and the keys of its details', () => {
    expect(expected({ command: 'curl x', shown: '{"error":{"code":"model.in_use","message":"m","details":{"model":"a","slots":[]}}}' })).toEqual({ kind: 'error', code: 'model.in_use', keys: ['model', 'slots'] });
    expect(expected({ command: 'curl x', shown: '{\n  "error": { "code": "a.b", "details": { "…": "…" } }\n}' })).toEqual({ kind: 'error', code: 'a.b', keys: [] });
  });

  it('reads a success: JSON with its top-level keys (not the ellipsis), or text, or nothing shown', () => {
    expect(expected({ command: 'curl x', shown: '{"slot":{},"changes":[],"…":"…"}' })).toEqual({ kind: 'ok', json: true, keys: ['slot', 'changes'] });
    expect(expected({ command: 'curl x', shown: '{"probe":{…as above…}}' })).toEqual({ kind: 'ok', json: true, keys: [] });
    expect(expected({ command: 'curl x', shown: '' })).toEqual({ kind: 'ok', json: false, keys: [] });
  });

  it('reads a stream from -N or an answer in server-sent events', () => {
    expect(expected({ command: 'curl -s -N http://h:1/s', shown: ': svc events\n\nid: 1' })).toEqual({ kind: 'stream', first: 'comment' });
    expect(expected({ command: 'curl -s http://h:1/s', shown: 'data: "line"' })).toEqual({ kind: 'stream', first: 'field' });
    expect(expected({ command: "curl -s -N -H 'Last-Event-ID: 18' http://h:1/s", shown: '' })).toEqual({ kind: 'stream' });
  });
});
