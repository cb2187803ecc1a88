// The interactive chat of `svc run` on a terminal: prompt `>>> `, replies streamed token by
// token, the conversation kept. Readline owns the terminal only while a message is typed;
// during a reply the terminal is back in its normal mode, so Ctrl-C arrives as SIGINT and
// stops that reply (its request is aborted) instead of quitting.
import { createInterface } from 'node:readline';
import type { ApiClient } from '../client.js';
import { exitFor } from '../output.js';
import { MessageAssembler, unknownCommandMessage, type InputStep } from './run-input.js';
import { streamReply, type ChatMessage } from './run-stream.js';

const PROMPT = '>>> ';
const MORE = '... ';
const HELP = [
  'Type a message and press Enter; the reply streams below it.',
  '  end a line with \\ to go on on the next line, or wrap several lines in """',
  '  /clear  forget the conversation so far',
  '  /bye    quit (also Ctrl-D, or Ctrl-C at an empty prompt)',
  '  Ctrl-C during a reply stops that reply',
];

type Typed = Exclude<InputStep, { kind: 'more' }> | { kind: 'quit' };

/** Read one message (or command) at the prompt; quit on Ctrl-D, or Ctrl-C with nothing typed. */
function readMessage(history: string[]): Promise<Typed> {
  return new Promise((resolve) => {
    const assembler = new MessageAssembler();
    const rl = createInterface({ input: process.stdin, output: process.stdout, history: [...history], historySize: 200, removeHistoryDuplicates: true, prompt: PROMPT });
    rl.on('history', (lines: string[]) => history.splice(0, history.length, ...lines));
    let settled = false;
    const done = (typed: Typed) => {
      if (settled) return;
      settled = true;
      process.removeListener('SIGINT', interrupt);
      rl.close();
      resolve(typed);
    };
    // Without a terminal for readline (stdout redirected), Ctrl-C is a real SIGINT.
    const interrupt = () => {
      process.stdout.write('\n');
      done({ kind: 'quit' });
    };
    process.on('SIGINT', interrupt);
    rl.on('line', (line) => {
      const step = assembler.push(line);
      if (step.kind !== 'more') return done(step);
      rl.setPrompt(MORE);
      rl.prompt();
    });
    rl.on('SIGINT', () => {
      if (rl.line === '' && !assembler.pending) return interrupt();
      // Something typed: drop it and start again, as a shell does.
      assembler.reset();
      rl.setPrompt(PROMPT);
      process.stdout.write('^C\n');
      rl.write(null, { ctrl: true, name: 'e' });
      rl.write(null, { ctrl: true, name: 'u' });
    });
    rl.on('close', () => {
      if (!settled) process.stdout.write('\n');
      done({ kind: 'quit' });
    });
    rl.prompt();
  });
}

/** One reply, streamed to stdout; Ctrl-C aborts it. Resolves with the reply, or undefined when it was stopped or failed. */
async function reply(client: ApiClient, slot: string, messages: readonly ChatMessage[]): Promise<string | undefined> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.on('SIGINT', stop);
  let last = '\n';
  try {
    const text = await streamReply(client, slot, messages, controller.signal, (piece) => {
      process.stdout.write(piece);
      last = piece;
    });
    process.stdout.write(last.endsWith('\n') ? '\n' : '\n\n');
    return text;
  } catch (error) {
    if (controller.signal.aborted) {
      process.stdout.write('\n(reply stopped)\n\n');
      return undefined;
    }
    // The chat goes on after a failed reply; the error reads as the other commands' do.
    if (!last.endsWith('\n')) process.stdout.write('\n');
    process.stderr.write(`svc: ${exitFor(error).message}\n\n`);
    return undefined;
  } finally {
    process.removeListener('SIGINT', stop);
  }
}

/** The chat loop, until /bye, Ctrl-D or Ctrl-C at an empty prompt. */
export async function chatInteractive(client: ApiClient, slot: string): Promise<void> {
  const messages: ChatMessage[] = [];
  const history: string[] = [];
  for (;;) {
    const typed = await readMessage(history);
    if (typed.kind === 'quit' || (typed.kind === 'command' && typed.name === '/bye')) return;
    if (typed.kind === 'command') {
      if (typed.name === '/clear') {
        messages.length = 0;
        process.stdout.write('conversation cleared\n');
      } else if (typed.name === '/?' || typed.name === '/help') {
        process.stdout.write(`${HELP.join('\n')}\n`);
      } else {
        process.stderr.write(`svc: ${unknownCommandMessage(typed.name)}\n`);
      }
      continue;
    }
    if (typed.text.trim() === '') continue;
    messages.push({ role: 'user', content: typed.text });
    const text = await reply(client, slot, messages);
    // A stopped or failed reply leaves no trace: the next message follows the last complete exchange.
    if (text === undefined) messages.pop();
    else messages.push({ role: 'assistant', content: text });
  }
}
