// svc memory graph status|enable|disable: thin over /api/memory/graph (docs/cli.md, docs/memory.md
// "Graph"). `enable --slot` must name an enabled llm slot; the gateway checks it (422 with the
// slots that are).
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { MemoryGraphPutAnswer, MemoryGraphStatus } from '../../protocol/memory-graph.js';
import type { ApiClient } from '../client.js';
import { print, printJson, warn } from '../output.js';

type Json = { json?: boolean };

function seconds(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 30 || Number(value) > 3600) throw new InvalidArgumentError(`expected whole seconds from 30 to 3600; got "${value}"`);
  return Number(value);
}

function printStatus(s: MemoryGraphStatus): void {
  print(`graph extraction: ${s.enabled ? 'on' : 'off'} (engine ${s.engine})`);
  print(`extraction slot:  ${s.extraction_slot}${s.slot_resolves ? '' : ' (not an enabled llm slot)'}`);
  print(`available slots:  ${s.available_slots.length ? s.available_slots.join(', ') : 'none'}`);
  print(`llm timeout:      ${s.llm_timeout_s} s`);
  print(`in flight:        ${s.in_flight}`);
  print(`built:            ${s.builds_ok}${s.last_built_at ? ` (last ${s.last_built_at})` : ''}`);
  print(`errors:           ${s.errors}${s.last_error ? ` (last: ${s.last_error})` : ''}`);
}

function printPut(answer: MemoryGraphPutAnswer): void {
  printStatus(answer.status);
  const p = answer.propagation;
  if (!p.applicable) return;
  print(`drop-in:          ${p.drop_in} (${p.written ? 'written' : 'not written'}; daemon-reload ${p.daemon_reloaded ? 'ok' : 'not done'}; restart ${p.restarted ? 'ok' : 'not done'})`);
  if (p.error) warn(`propagation: ${p.error}`);
}

export function registerMemoryGraphCommands(memory: Command, client: () => ApiClient): void {
  const graph = memory.command('graph').description('graph extraction: status, enable, disable (docs/memory.md "Graph")');
  const json = () => new Option('--json', 'print JSON');
  const put = (body: Record<string, unknown>) => client().request<MemoryGraphPutAnswer>('PUT', '/api/memory/graph', body, { timeoutMs: null });

  graph.command('status').description('whether extraction is on, its slot, and the queue\'s counters').addOption(json()).action(async (o: Json) => {
    const status = await client().request<MemoryGraphStatus>('GET', '/api/memory/graph/status');
    if (o.json) return printJson(status);
    printStatus(status);
  });

  graph.command('enable').description('turn extraction on with an llm slot')
    .requiredOption('--slot <name>', 'the llm slot that extracts (must be an enabled llm slot)')
    .addOption(new Option('--timeout <s>', 'timeout of one extraction call, 30-3600 s').argParser(seconds))
    .addOption(json())
    .action(async (o: Json & { slot: string; timeout?: number }) => {
      const answer = await put({ enabled: true, extraction_slot: o.slot, ...(o.timeout !== undefined && { llm_timeout_s: o.timeout }) });
      if (o.json) return printJson(answer);
      printPut(answer);
    });

  graph.command('disable').description('turn extraction off (the graph built so far stays)').addOption(json()).action(async (o: Json) => {
    const answer = await put({ enabled: false });
    if (o.json) return printJson(answer);
    printPut(answer);
  });
}
