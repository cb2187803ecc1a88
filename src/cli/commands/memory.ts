// svc memory banks|add|search|recall (and, in memory-admin.ts, the bank admin, reembed, migrate): thin over /api/memory (docs/cli.md, "svc memory";
// docs/memory.md). --agent and --private are the X-Svc-Agent / X-Svc-Private headers an
// agent sends; the gateway checks them.
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { MemoryItem } from '../../protocol/memory.js';
import type { ApiClient } from '../client.js';
import { print, printJson, progress, table } from '../output.js';
import { registerMemoryGraphCommands } from './memory-graph.js';
import { registerMemoryAdminCommands } from './memory-admin.js';

interface Who { agent?: string; private?: boolean }
type Json = { json?: boolean };

function positive(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`expected a positive integer; got "${value}"`);
  return Number(value);
}

const headersOf = (o: Who): Record<string, string> => ({ ...(o.agent && { 'x-svc-agent': o.agent }), ...(o.private && { 'x-svc-private': '1' }) });

const oneLine = (text: string, max = 70) => {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function printItems(items: readonly MemoryItem[]): void {
  if (items.length === 0) return print('no memories found');
  const rows = items.map((item) => [item.id, item.score === null ? '-' : item.score.toFixed(4), item.bank, oneLine(item.text)]);
  for (const line of table(['ID', 'SCORE', 'BANK', 'TEXT'], rows)) print(line);
}

/**
 * Before a request that opens the memory store: when the embedded database is not running,
 * say that the wait is its start (a first use runs initdb, seconds), as the engine route
 * tells it; a report that fails says nothing, and the request then says what is wrong.
 */
async function sayIfStarting(client: ApiClient): Promise<void> {
  const engine = await client.memoryEngine().catch(() => null);
  if (!engine || engine.kind !== 'embedded' || engine.state === 'ready') return;
  progress(engine.initialised === false ? 'starting the memory database (first use initialises it, which takes a few seconds)…' : 'starting the memory database…');
}

export function registerMemoryCommands(program: Command, client: () => ApiClient): void {
  const memory = program.command('memory').description('memory: banks, add, search, recall, reembed, migrate (docs/memory.md)');
  const json = () => new Option('--json', 'print JSON');
  const who = (command: Command) => command
    .option('--agent <id>', 'act as this agent (X-Svc-Agent; default anonymous)')
    .option('--private', "the agent's private namespace (X-Svc-Private)", false);

  const banks = memory.command('banks').description('list banks with their vector dimension and item counts; show, create, delete, export, import one');
  banks.addOption(json()).action(async (o: Json) => {
    await sayIfStarting(client());
    const { banks } = await client().listMemoryBanks();
    if (o.json) return printJson({ banks });
    if (banks.length === 0) return print('no banks yet (the first `svc memory add` makes `shared`)');
    for (const line of table(['BANK', 'ITEMS', 'DIMENSION', 'CREATED'], banks.map((b) => [b.id, String(b.items), b.dimension === null ? '-' : String(b.dimension), b.created_at]))) print(line);
  });

  who(memory.command('add <text...>').description('add a memory (the words joined by spaces)'))
    .option('--dataset <name>', 'a dataset to file it under')
    .option('--tag <tag...>', 'tags (repeatable)')
    .addOption(json())
    .action(async (words: string[], o: Who & Json & { dataset?: string; tag?: string[] }) => {
      await sayIfStarting(client());
      const added = await client().addMemory({ text: words.join(' '), ...(o.dataset && { dataset: o.dataset }), ...(o.tag && { tags: o.tag }) }, headersOf(o));
      if (o.json) return printJson(added);
      print(`added ${added.id} at ${added.timestamp}`);
    });

  who(memory.command('search <query...>').description('hybrid search (vectors and full text) of the memories this agent may read'))
    .addOption(new Option('-n, --limit <n>', 'how many').argParser(positive).default(10))
    .option('--dataset <name>', 'only this dataset')
    .addOption(json())
    .action(async (words: string[], o: Who & Json & { limit: number; dataset?: string }) => {
      await sayIfStarting(client());
      const answer = await client().searchMemory({ query: words.join(' '), limit: o.limit, ...(o.dataset && { dataset: o.dataset }) }, headersOf(o));
      if (o.json) return printJson(answer);
      printItems(answer.items);
    });

  who(memory.command('recall <query...>').description('recall across banks: the rerank pass, precedence and a token budget'))
    .addOption(new Option('--max-tokens <n>', 'the token budget (len(text)/4 per memory)').argParser(positive).default(4096))
    .addOption(json())
    .action(async (words: string[], o: Who & Json & { maxTokens: number }) => {
      await sayIfStarting(client());
      const answer = await client().recallMemory({ query: words.join(' '), max_tokens: o.maxTokens }, headersOf(o));
      if (o.json) return printJson(answer);
      printItems(answer.items);
      print(`rerank: ${answer.rerank}`);
    });

  registerMemoryGraphCommands(memory, client);
  registerMemoryAdminCommands(memory, banks, client);
}
