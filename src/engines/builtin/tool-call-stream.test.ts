import { describe, expect, it } from 'vitest';
import { ToolCallStream, type CallEvent } from './tool-call-stream.js';

function feed(pieces: string[]): { events: CallEvent[]; parser: ToolCallStream } {
  const parser = new ToolCallStream();
  return { events: pieces.flatMap((p) => parser.push(p)), parser };
}

describe('ToolCallStream', () => {
  it('announces a call when its name is whole and streams its arguments as they come', () => {
    const { events, parser } = feed(['[{"na', 'me":"get_', 'weather","argu', 'ments":{"ci', 'ty":"Oslo"}', '}]']);
    expect(events).toEqual([
      { kind: 'start', index: 0, name: 'get_weather' },
      { kind: 'arguments', index: 0, text: '{"ci' },
      { kind: 'arguments', index: 0, text: 'ty":"Oslo"}' },
    ]);
    expect(parser.calls).toEqual([{ name: 'get_weather', arguments: '{"city":"Oslo"}' }]);
    expect(parser.complete).toBe(true);
  });

  it('braces, brackets, quotes and escapes inside argument strings do not end the arguments', () => {
    const args = '{"q":"a } ] \\" \\\\","list":[1,{"x":[]}],"n":-2.5e3}';
    const text = `[{"name":"f","arguments":${args}},{"name":"g","arguments":{}}]`;
    // One character at a time, the hardest way for a parser.
    const { events, parser } = feed([...text]);
    expect(parser.calls).toEqual([{ name: 'f', arguments: args }, { name: 'g', arguments: '{}' }]);
    expect(events.filter((e) => e.kind === 'arguments' && e.index === 0).map((e) => (e as { text: string }).text).join('')).toBe(args);
    expect(events.filter((e) => e.kind === 'start')).toEqual([{ kind: 'start', index: 0, name: 'f' }, { kind: 'start', index: 1, name: 'g' }]);
    expect(parser.complete).toBe(true);
  });

  it('a stream cut short is not complete, and keeps the partial arguments', () => {
    const { parser } = feed(['[{"name":"f","arguments":{"a":"unfinished']);
    expect(parser.complete).toBe(false);
    expect(parser.calls).toEqual([{ name: 'f', arguments: '{"a":"unfinished' }]);
  });

  it('scalar arguments end at the call object', () => {
    expect(feed(['[{"name":"f","arguments":42}]']).parser.calls).toEqual([{ name: 'f', arguments: '42' }]);
  });

  it('counts the whole calls: closed ones, and the last once its arguments are a complete object', () => {
    expect(feed(['[{"name":"f","arguments":{"a":1}},{"name":"g","arguments":{"b":"cut']).parser.whole).toBe(1);
    expect(feed(['[{"name":"f","arguments":{"a":1}},{"name":"g']).parser.whole).toBe(1);
    expect(feed(['[{"name":"f","arguments":{}']).parser.whole).toBe(1);
    expect(feed(['[{"name":"f","arguments":{"a":[1,2]}},{"name":"g","arguments":{}}]']).parser.whole).toBe(2);
    expect(feed(['[{"name":"f","argu']).parser.whole).toBe(0);
  });
});
