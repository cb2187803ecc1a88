// svc memory banks show|create|delete|export|import and svc memory reembed <bank> (docs/cli.md,
// "svc memory"; docs/memory.md): thin over /api/memory/banks. svc memory migrate is memory-migrate.ts.
import { type Command, Option } from 'commander';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { MemoryBankView, MemoryReembedJob } from '../../protocol/memory.js';
import type { ApiClient } from '../client.js';
import { CliExit, print, printJson, table } from '../output.js';
import { registerMemoryMigrateCommands } from './memory-migrate.js';

type Json = { json?: boolean };
const json = () => new Option('--json', 'print JSON');
/** `svc memory banks` has --json too, and commander gives it the flag wherever it stands. */
const wantsJson = (o: Json, banks: Command) => Boolean(o.json || (banks.opts() as Json).json);

function printBank(bank: MemoryBankView): void {
  const rows = [['id', bank.id], ['name', bank.name ?? '-'], ['description', bank.description ?? '-'], ['items', String(bank.items)],
    ['dimension', bank.dimension === null ? '-' : String(bank.dimension)], ['config', JSON.stringify(bank.config)], ['created', bank.created_at], ['updated', bank.updated_at]];
  for (const line of table(['FIELD', 'VALUE'], rows)) print(line);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function registerMemoryAdminCommands(memory: Command, banks: Command, client: () => ApiClient): void {
  banks.command('show <bank>').description("one bank's fields and counts").addOption(json()).action(async (id: string, o: Json) => {
    const bank = await client().memoryBank(id);
    if (wantsJson(o, banks)) return printJson(bank);
    printBank(bank);
  });

  banks.command('create <bank>').description('create a bank (or replace its name and description)')
    .option('--name <name>', 'a display name').option('--description <text>', 'what it holds')
    .addOption(json())
    .action(async (id: string, o: Json & { name?: string; description?: string }) => {
      const bank = await client().putMemoryBank(id, { ...(o.name && { name: o.name }), ...(o.description && { description: o.description }) });
      if (wantsJson(o, banks)) return printJson(bank);
      print(`bank ${bank.id}: ${bank.items} memories, ${bank.dimension ?? '-'} dimensions`);
    });

  banks.command('delete <bank>').description('delete a bank and every memory in it').option('--yes', 'yes, delete it (required)', false).addOption(json())
    .action(async (id: string, o: Json & { yes: boolean }) => {
      if (!o.yes) throw new CliExit(2, `deleting bank ${id} removes all its memories: run again with --yes`);
      const answer = await client().deleteMemoryBank(id);
      if (wantsJson(o, banks)) return printJson(answer);
      print(`deleted bank ${answer.deleted} (${answer.items} memories)`);
    });

  banks.command('export <bank>').description('the bank as JSON lines (a memory with its embedding a line)')
    .option('-o, --output <file>', 'write to this file (default: stdout)')
    .action(async (id: string, o: { output?: string }) => {
      const response = await client().exportMemoryBank(id, new AbortController().signal);
      const body = Readable.fromWeb(response.body! as WebReadableStream<Uint8Array>);
      await pipeline(body, o.output ? createWriteStream(o.output, { mode: 0o600 }) : new Writable({ write: (chunk, _e, done) => void process.stdout.write(chunk, () => done()) }));
    });

  banks.command('import <bank> <file>').description('import JSON lines as `export` writes them')
    .addOption(new Option('--on-conflict <what>', 'a memory whose id is taken').choices(['skip', 'replace', 'new-id']).default('skip'))
    .addOption(json())
    .action(async (id: string, file: string, o: Json & { onConflict: string }) => {
      const answer = await client().importMemoryBank(id, await readFile(file, 'utf8'), o.onConflict);
      if (wantsJson(o, banks)) return printJson(answer);
      print(`imported into ${answer.bank}: ${answer.added} added, ${answer.replaced} replaced, ${answer.skipped} skipped`);
    });

  memory.command('reembed <bank>').description('re-embed a bank with the current embedding model (after changing it)')
    .option('--no-wait', 'start the job and return')
    .addOption(json())
    .action(async (id: string, o: Json & { wait: boolean }) => {
      let job: MemoryReembedJob = await client().reembedMemoryBank(id);
      if (!o.json) print(`re-embedding ${job.bank} (${job.total} memories) with ${job.model}: job ${job.id}`);
      while (o.wait && job.state === 'running') {
        await sleep(1000);
        job = await client().memoryReembedJob(id);
      }
      if (o.json) return printJson(job);
      if (job.state === 'failed') throw new CliExit(1, `re-embedding ${job.bank} failed after ${job.done} memories: ${job.error}`);
      if (job.state === 'done') print(`re-embedded ${job.done} memories: ${job.from_dimension ?? '-'} -> ${job.to_dimension} dimensions`);
    });

  registerMemoryMigrateCommands(memory, client);
}
