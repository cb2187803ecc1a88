import { describe, expect, it } from 'vitest';
import { MessageAssembler, unknownCommandMessage } from './run-input.js';

const feed = (...lines: string[]) => {
  const assembler = new MessageAssembler();
  return lines.map((line) => assembler.push(line));
};

describe('MessageAssembler: typed lines to one message, as Ollama reads them', () => {
  it('one line is one message, spaces kept', () => {
    expect(feed('  hello there ')).toEqual([{ kind: 'message', text: '  hello there ' }]);
  });

  it('a line ending in \\ goes on on the next line, joined by a newline', () => {
    expect(feed('first \\', 'second\\', 'third')).toEqual([{ kind: 'more' }, { kind: 'more' }, { kind: 'message', text: 'first \nsecond\nthird' }]);
  });

  it('""" opens a block that a line ending in """ closes; text on the opening and closing lines counts', () => {
    expect(feed('"""', 'a', '', 'b"""')).toEqual([{ kind: 'more' }, { kind: 'more' }, { kind: 'more' }, { kind: 'message', text: 'a\n\nb' }]);
    expect(feed('"""start', 'end \\', '"""')).toEqual([{ kind: 'more' }, { kind: 'more' }, { kind: 'message', text: 'start\nend \\' }]);
  });

  it('"""one line""" is a message of its own', () => {
    expect(feed('"""just this"""')).toEqual([{ kind: 'message', text: 'just this' }]);
  });

  it('commands only at the start of a message; inside one they are text', () => {
    expect(feed('/bye')).toEqual([{ kind: 'command', name: '/bye' }]);
    expect(feed(' /clear ')).toEqual([{ kind: 'command', name: '/clear' }]);
    expect(feed('"""', '/bye', '"""')).toEqual([{ kind: 'more' }, { kind: 'more' }, { kind: 'message', text: '/bye' }]);
  });

  it('any one word of a slash and letters is a command, so a typo is not sent to the model; paths and sentences are text', () => {
    expect(feed('/bogus')).toEqual([{ kind: 'command', name: '/bogus' }]);
    expect(feed('/byebye')).toEqual([{ kind: 'command', name: '/byebye' }]);
    expect(feed('/etc/hosts')).toEqual([{ kind: 'message', text: '/etc/hosts' }]);
    expect(feed('/bye now')).toEqual([{ kind: 'message', text: '/bye now' }]);
    expect(feed('"""/bogus"""')).toEqual([{ kind: 'message', text: '/bogus' }]);
    expect(unknownCommandMessage('/bogus')).toBe('unknown command /bogus: the commands are /bye, /clear, /?, /help (to send text that starts with /, wrap it in """)');
  });

  it('pending while a message is half typed; reset forgets it', () => {
    const assembler = new MessageAssembler();
    assembler.push('"""');
    assembler.push('half');
    expect(assembler.pending).toBe(true);
    assembler.reset();
    expect(assembler.pending).toBe(false);
    expect(assembler.push('fresh')).toEqual({ kind: 'message', text: 'fresh' });
  });
});
