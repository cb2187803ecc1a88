// svc run <ref> [prompt]: the one-command path (issue 13 §4). Find what the ref names (a slot,
// a registered model, a served id, else a model to pull: run-target.ts), load it, then chat:
// interactively on a terminal, else one prompt (the argument, and/or all of a piped stdin)
// whose reply is printed as it streams.
import type { ApiClient } from '../client.js';
import { CliExit, EXIT } from '../output.js';
import { chatInteractive } from './run-chat.js';
import { chatTarget } from './run-target.js';
import { streamReply } from './run-stream.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The one-shot prompt: piped stdin first, then the argument (`cat notes.txt | svc run m "summarize"`); undefined for the interactive chat. */
async function oneShotPrompt(prompt: string | undefined): Promise<string | undefined> {
  if (process.stdin.isTTY) {
    if (prompt !== undefined && prompt.trim() === '') throw new CliExit(EXIT.usage, 'the prompt is empty; leave it out for the interactive chat');
    return prompt;
  }
  const piped = (await readStdin()).trim();
  const text = [piped, prompt ?? ''].filter((part) => part.trim() !== '').join('\n\n');
  if (text === '') throw new CliExit(EXIT.usage, 'no prompt: stdin is not a terminal and gave no text; pass the prompt as an argument (svc run <model> "<prompt>") or pipe it in');
  return text;
}

export async function runCommand(client: ApiClient, ref: string, prompt: string | undefined): Promise<void> {
  // Read first: an empty pipe is a usage error before anything is created or loaded.
  const text = await oneShotPrompt(prompt);
  const model = await chatTarget(client, ref);
  if (text === undefined) return chatInteractive(client, model);
  let last = '\n';
  await streamReply(client, model, [{ role: 'user', content: text }], new AbortController().signal, (piece) => {
    process.stdout.write(piece);
    last = piece;
  });
  if (!last.endsWith('\n')) process.stdout.write('\n');
}
