// Reading the tool-call grammar's output as it is generated: a compact JSON array
// `[{"name":"<fn>","arguments":<json>},...]`. Each call is announced when its name is
// complete, and its arguments go out in pieces as they arrive (OpenAI's stream shape), so
// the parser tracks strings and nesting: an argument string may hold braces and brackets.
// The raw argument text is kept as generated, so the streamed pieces and the final answer
// carry the very same string.

export type CallEvent =
  | { kind: 'start'; index: number; name: string }
  | { kind: 'arguments'; index: number; text: string };

export interface ParsedCall {
  name: string;
  arguments: string;
}

type State = 'array' | 'call' | 'name-key' | 'name' | 'arguments-key' | 'arguments' | 'after-call' | 'done';

const NAME_KEY = '"name":"';
const ARGUMENTS_KEY = ',"arguments":';

export class ToolCallStream {
  readonly calls: ParsedCall[] = [];
  private state: State = 'array';
  /** How much of the literal key the state expects has been seen. */
  private matched = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Calls whose arguments ended (the call object closed). */
  private closed = 0;

  /** The array closed: every call is whole. */
  get complete(): boolean {
    return this.state === 'done';
  }

  /** A call just ended and no other has begun: stopping here leaves only whole calls. */
  get betweenCalls(): boolean {
    return this.state === 'after-call';
  }

  /**
   * How many calls are whole: those whose call object closed, and the last one too when its
   * arguments already are a complete JSON object (a proper prefix of an object never parses).
   */
  get whole(): number {
    const open = this.calls.length - this.closed;
    if (open === 0 || this.state !== 'arguments') return this.closed;
    try {
      JSON.parse(this.calls.at(-1)!.arguments);
      return this.closed + 1;
    } catch {
      return this.closed;
    }
  }

  push(piece: string): CallEvent[] {
    const events: CallEvent[] = [];
    let args = '';
    const flushArgs = () => {
      if (args !== '') events.push({ kind: 'arguments', index: this.calls.length - 1, text: args });
      args = '';
    };
    for (const char of piece) {
      if (this.state === 'arguments') {
        if (this.endsArguments(char)) {
          flushArgs();
          this.state = 'after-call';
          this.closed++;
          continue;
        }
        args += char;
        this.calls.at(-1)!.arguments += char;
        continue;
      }
      this.step(char, events);
    }
    flushArgs();
    return events;
  }

  private step(char: string, events: CallEvent[]): void {
    switch (this.state) {
      case 'array':
        if (char === '[') this.state = 'call';
        return;
      case 'call':
        if (char === '{') this.expect('name-key');
        else if (char === ']') this.state = 'done';
        return;
      case 'name-key':
        if (this.matchKey(char, NAME_KEY)) {
          this.calls.push({ name: '', arguments: '' });
          this.state = 'name';
        }
        return;
      case 'name':
        if (char !== '"') {
          this.calls.at(-1)!.name += char;
          return;
        }
        events.push({ kind: 'start', index: this.calls.length - 1, name: this.calls.at(-1)!.name });
        this.expect('arguments-key');
        return;
      case 'arguments-key':
        if (this.matchKey(char, ARGUMENTS_KEY)) {
          this.state = 'arguments';
          this.depth = 0;
          this.inString = false;
          this.escaped = false;
        }
        return;
      case 'after-call':
        if (char === ',') this.state = 'call';
        else if (char === ']') this.state = 'done';
        return;
      default:
    }
  }

  private expect(state: State): void {
    this.state = state;
    this.matched = 0;
  }

  /** Literal keys come whole from the grammar; anything else is skipped until they do. */
  private matchKey(char: string, key: string): boolean {
    this.matched = char === key[this.matched] ? this.matched + 1 : char === key[0] ? 1 : 0;
    return this.matched === key.length;
  }

  /** Whether `char` closes the call object around the arguments (and is not part of them). */
  private endsArguments(char: string): boolean {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (char === '\\') this.escaped = true;
      else if (char === '"') this.inString = false;
      return false;
    }
    if (char === '"') this.inString = true;
    else if (char === '{' || char === '[') this.depth++;
    else if (char === '}' || char === ']') {
      if (this.depth === 0) return true;
      this.depth--;
    }
    return false;
  }
}
