// svc memory migrate (docs/cli.md, "svc memory"; docs/memory.md):
// - bare: a dry-run over the legacy Cognee index; it reads the file itself and needs no gateway;
// - unify: source banks copied into a target bank, thin over POST /api/memory/migrate/unify
//   (a dry-run that prints the plan unless --apply).
import { type Command, Option } from 'commander';
import type { MemoryUnifyAnswer } from '../../protocol/memory.js';
import { LEGACY_COGNEE_DIR, planLegacyMigration } from '../../memory/legacy-cognee.js';
import type { ApiClient } from '../client.js';
import { CliExit, print, printJson, table } from '../output.js';

type Json = { json?: boolean };
const json = () => new Option('--json', 'print JSON');
const collect = (value: string, previous: string[] = []) => [...previous, value];

interface UnifyOptions extends Json { source: string[]; target: string; apply?: boolean; dryRun?: boolean; addTag?: string[]; onConflict: string; skipObservations?: boolean }

function printUnify(answer: MemoryUnifyAnswer): void {
  print(`memory · migrate unify → ${answer.target}${answer.dry_run ? ' (dry-run)' : ''}`);
  const applied = !answer.dry_run;
  const header = ['SOURCE', 'FACTS', 'LAST ACTIVITY', 'TAGS TO ADD', ...(applied ? ['ADDED', 'REPLACED', 'SKIPPED'] : [])];
  const rows = answer.sources.map((s) => [s.bank, String(s.items), s.last_activity ?? '-', s.tags_to_add.join(', ') || '-',
    ...(applied ? [String(s.added ?? 0), String(s.replaced ?? 0), String(s.skipped ?? 0)] : [])]);
  for (const line of table(header, rows)) print(line);
  print();
  if (answer.dry_run) {
    print(`This is a plan only — nothing was written. Run again with --apply to copy ${answer.totals.items} memories into ${answer.target}`);
    print(`(on conflict: ${answer.on_conflict}${answer.skip_observations ? '; observations left behind' : ''}; the source banks are kept).`);
    return;
  }
  const { added, replaced, skipped } = answer.totals;
  print(`unified into ${answer.target}: ${added} added, ${replaced} replaced, ${skipped} skipped; the source banks are kept (svc memory banks delete <bank> --yes removes one).`);
}

interface FromOptions extends Json { cogneeDir: string; dryRun: boolean; from?: string; to: string; apply?: boolean; agent?: string; dataset?: string; since?: string; resume?: boolean }

/** --from hindsight (the one engine offered; commander refuses any other): thin over POST /api/memory/migrate/hindsight. */
async function fromEngine(api: ApiClient, o: FromOptions): Promise<void> {
  const answer = await api.migrateFromHindsight({
    apply: Boolean(o.apply) || !o.dryRun, resume: Boolean(o.resume), ...(o.agent && { agent: o.agent }), ...(o.dataset && { dataset: o.dataset }), ...(o.since && { since: o.since }),
  });
  if (o.json) return printJson(answer);
  print(`memory · migrate hindsight → ${answer.to}${answer.dry_run ? ' (dry-run)' : ''}${answer.resumed ? ' (resumed)' : ''}`);
  const rows = answer.banks.map((b) => [b.bank, String(b.items), ...(answer.dry_run ? [] : [String(b.added), String(b.skipped), b.done ? 'yes' : 'no'])]);
  for (const line of table(['BANK', 'MEMORIES', ...(answer.dry_run ? [] : ['ADDED', 'SKIPPED', 'DONE'])], rows)) print(line);
  print();
  if (answer.dry_run) return print(`This is a plan only — nothing was written. Run again with --apply to copy ${answer.totals.items} memories (each embedded again by the embedding slot).`);
  print(`copied ${answer.totals.added} memories (${answer.totals.skipped} already there); progress in ${answer.state_file}`);
}

export function registerMemoryMigrateCommands(memory: Command, client: () => ApiClient): void {
  const migrate = memory.command('migrate').description('the legacy Cognee dry-run (no gateway needed); --from hindsight copies a daemon\'s banks; `unify` copies banks into one')
    .option('--cognee-dir <dir>', 'where the legacy Cognee store is', LEGACY_COGNEE_DIR)
    .option('--no-dry-run', 'apply the migration (the Cognee one is not implemented)')
    .addOption(new Option('--from <engine>', "copy this engine's banks into svc's store").choices(['hindsight']))
    .addOption(new Option('--to <engine>', 'the engine copied into').choices(['pgvector']).default('pgvector'))
    .option('--apply', 'with --from: copy (the default is a dry-run that counts)')
    .option('--agent <id>', "with --from: only this agent's memories")
    .option('--dataset <name>', 'with --from: only this dataset')
    .option('--since <time>', 'with --from: only memories from this ISO time on')
    .option('--resume', 'with --from: go on from the migrate state file')
    .addOption(json())
    .action(async (o: FromOptions) => {
      if (o.from) return fromEngine(client(), o);
      if (!o.dryRun || o.apply) throw new CliExit(1, '--apply is not yet implemented; dry-run only.');
      const plan = await planLegacyMigration(o.cogneeDir);
      const { rows_total, rows_mapped, rows_unmapped, noop } = plan;
      if (o.json) return printJson({ rows_total, rows_mapped, rows_unmapped, noop });
      print('memory · migrate (dry-run)');
      if (!plan.found) print(`  (no legacy index at ${plan.index})`);
      const rows = [['Rows total', String(rows_total)], ['Rows mapped', String(rows_mapped)], ['Rows unmapped', String(rows_unmapped)], ['No-op', noop ? 'yes' : 'no']];
      for (const [label, value] of rows) print(`  ${label!.padEnd(14)}${value}`);
    });

  migrate.command('unify').description('copy source banks (e.g. private__hermes) into a target bank; a dry-run unless --apply')
    .requiredOption('--source <bank>', 'a bank to copy from (repeat for several)', collect)
    .option('--target <bank>', 'the bank to copy into', 'shared')
    .option('--apply', 'copy (the default is a dry-run that prints the plan)')
    .option('--dry-run', 'print the plan only (the default)')
    .option('--add-tag <tag>', 'a tag every copied memory gets (repeat for several)', collect)
    .addOption(new Option('--on-conflict <what>', 'a memory copied by an earlier run').choices(['skip', 'replace', 'new-id']).default('skip'))
    .option('--skip-observations', 'leave memories of type observation behind')
    .addOption(json())
    .action(async (o: UnifyOptions) => {
      // --apply and --json may land on `migrate`, which has them too (commander gives a parent's option to it wherever it stands).
      const parent = migrate.opts() as { apply?: boolean; json?: boolean };
      const apply = Boolean(o.apply || parent.apply);
      if (apply && o.dryRun) throw new CliExit(2, '--apply and --dry-run contradict each other: pick one');
      const answer = await client().unifyMemoryBanks({
        sources: o.source, target: o.target, apply, add_tags: o.addTag ?? [], on_conflict: o.onConflict, skip_observations: Boolean(o.skipObservations),
      });
      if (o.json || parent.json) return printJson(answer);
      printUnify(answer);
    });
}
