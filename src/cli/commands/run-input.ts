// How `svc run` turns typed lines into one message, the way Ollama's prompt does: a line
// ending in `\` continues on the next line; `"""` opens a block that a line ending in
// `"""` closes. Pure, so the rules are tested without a terminal.

export const BLOCK = '"""';

/** What a line typed at the prompt completes. */
export type InputStep =
  | { kind: 'more' }
  | { kind: 'message'; text: string }
  | { kind: 'command'; name: string };

export const COMMANDS = ['/bye', '/clear', '/?', '/help'] as const;

/** A line that is one word of a slash and letters (or ?) reads as a command, known or not; "/etc/hosts" or "/bye now" are text. */
const COMMAND_WORD = /^\/[A-Za-z?]+$/;

/** What an unknown command (a typo such as /bogus) answers instead of going to the model. */
export const unknownCommandMessage = (name: string) =>
  `unknown command ${name}: the commands are ${COMMANDS.join(', ')} (to send text that starts with /, wrap it in ${BLOCK})`;

export class MessageAssembler {
  private lines: string[] = [];
  private inBlock = false;

  /** Whether a message is half typed (the prompt shows `... `). */
  get pending(): boolean {
    return this.inBlock || this.lines.length > 0;
  }

  /** Forget a half-typed message (Ctrl-C on a continuation line). */
  reset(): void {
    this.lines = [];
    this.inBlock = false;
  }

  push(line: string): InputStep {
    if (this.inBlock) {
      if (!line.trimEnd().endsWith(BLOCK)) return this.more(line);
      this.inBlock = false;
      return this.finish(line.trimEnd().slice(0, -BLOCK.length));
    }
    if (this.lines.length === 0) {
      const word = line.trim();
      // A command only at the start of a message: inside one, "/bye" is text.
      if (COMMAND_WORD.test(word)) return { kind: 'command', name: word };
      if (line.trimStart().startsWith(BLOCK)) {
        const rest = line.trimStart().slice(BLOCK.length);
        if (rest.trimEnd().endsWith(BLOCK)) return this.finish(rest.trimEnd().slice(0, -BLOCK.length));
        this.inBlock = true;
        return rest === '' ? { kind: 'more' } : this.more(rest);
      }
    }
    if (line.endsWith('\\')) return this.more(line.slice(0, -1));
    return this.finish(line);
  }

  private more(line: string): InputStep {
    this.lines.push(line);
    return { kind: 'more' };
  }

  private finish(last: string): InputStep {
    // A closing `"""` alone on its line adds no empty last line.
    const parts = last === '' && this.lines.length > 0 ? this.lines : [...this.lines, last];
    const text = parts.join('\n');
    this.lines = [];
    return { kind: 'message', text };
  }
}
