// svc stack list|show|apply|active|export|import|snapshot|delete: stacks over /api/stacks. Export writes
// the portable envelope (<slug>.svcstack.json); import reads one.
import { readFile, writeFile } from 'node:fs/promises';
import type { ApiClient } from '../client.js';
import { fitTable } from '../fit-table.js';
import { CliExit, EXIT, print, printJson, table } from '../output.js';

type Json = { json?: boolean };

/** The terminal's width, or 100 columns when the output is not a terminal (a pipe, a file). */
const outputWidth = () => (process.stdout.isTTY && process.stdout.columns ? process.stdout.columns : 100);

/** Slot names, a row's children after it ("agent (+embed, rerank)"): the models are `svc stack show`'s. */
function slotsOf(rows: ReadonlyArray<Record<string, unknown>>): string {
  return rows
    .map((r) => {
      const children = ((r.capabilities as Array<{ child: string }> | undefined) ?? []).map((c) => c.child);
      return `${String(r.slot)}${children.length ? ` (+${children.join(', ')})` : ''}`;
    })
    .join(', ');
}

export async function stackList(client: ApiClient, options: Json): Promise<void> {
  const { stacks } = await client.listStacks();
  if (options.json) return printJson({ stacks });
  const rows = stacks.map((s) => [s.slug, s.seed ? 'built-in' : 'user', `${s.icon ? `${s.icon} ` : ''}${s.name}`, slotsOf(s.slots) || '-', s.description || '-']);
  // The slots and the description wrap, so a line fits the terminal (100 columns off one).
  for (const line of fitTable(['SLUG', 'KIND', 'NAME', 'SLOTS', 'DESCRIPTION'], rows, outputWidth(), [3, 4])) print(line);
}

export async function stackShow(client: ApiClient, slug: string, options: Json): Promise<void> {
  const stack = await client.getStack(slug);
  if (options.json) return printJson(stack);
  print(`${stack.slug}${stack.seed ? ' (built-in, immutable)' : ''}: ${stack.name}${stack.description ? ` — ${stack.description}` : ''}`);
  const rows = stack.slots.map((r) => [String(r.slot), String(r.model), String(r.profile ?? '-'), String(r.device ?? '-'), String(r.role ?? '-'), ((r.capabilities as Array<{ child: string; model: string }> | undefined) ?? []).map((c) => `${c.child}=${c.model}`).join(' ') || '-']);
  for (const line of table(['SLOT', 'MODEL', 'PROFILE', 'DEVICE', 'ROLE', 'CHILDREN'], rows)) print(line);
}

export async function stackExport(client: ApiClient, slug: string, options: { out?: string }): Promise<void> {
  const envelope = await client.exportStack(slug);
  const text = `${JSON.stringify(envelope, null, 2)}\n`;
  if (options.out === '-') return void process.stdout.write(text);
  const file = options.out ?? `${slug}.svcstack.json`;
  await writeFile(file, text);
  print(`exported stack ${slug} to ${file}`);
}

export async function stackImport(client: ApiClient, file: string, options: Json & { slug?: string }): Promise<void> {
  let envelope: unknown;
  try {
    envelope = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new CliExit(EXIT.usage, `cannot read ${file} as JSON: ${(error as Error).message}`);
  }
  const result = await client.importStack(envelope, options.slug);
  if (options.json) return printJson(result);
  print(`imported stack ${result.stack.slug} (${result.stack.slots.length} slot row(s))`);
  if (result.profiles_added.length) print(`profiles added: ${result.profiles_added.join(', ')}`);
  if (result.profiles_kept.length) print(`profiles kept as they are here: ${result.profiles_kept.join(', ')}`);
  for (const model of result.models) print(`model ${model.id}: ${model.status}`);
}

export async function stackSnapshot(client: ApiClient, slug: string, options: Json & { name?: string }): Promise<void> {
  const stack = await client.snapshotStack(slug, options.name);
  if (options.json) return printJson(stack);
  print(`saved the live slots as stack ${stack.slug}: ${stack.slots.map((r) => String(r.slot)).join(', ') || 'no slots'}`);
}

export async function stackDelete(client: ApiClient, slug: string, options: Json): Promise<void> {
  const result = await client.deleteStack(slug);
  if (options.json) return printJson(result);
  print(`deleted stack ${slug}`);
}

export async function stackApply(client: ApiClient, slug: string, options: Json & { dryRun?: boolean; pull?: boolean }): Promise<void> {
  const result = await client.applyStack(slug, options.dryRun === true, options.pull === true);
  if (options.json) return printJson(result);
  // Before the plan: a model this host cannot resolve refuses the apply, whatever the plan says.
  for (const model of result.unresolvable ?? []) print(model.message);
  print(`${result.dry_run ? 'plan for' : 'applied'} stack ${slug}: ${result.summary}`);
  const rows = result.changes.map((c) => [c.slot, c.action, c.runtime, c.before_model ?? '-', c.after_model, c.fields.filter((f) => f.key !== 'model.default').map((f) => `${f.key}=${JSON.stringify(f.after)}`).join(' ') || '-']);
  for (const name of result.unloads) rows.push([name, 'kept', 'unload', '-', '-', '-']);
  for (const line of table(['SLOT', 'FILE', 'RUNTIME', 'BEFORE', 'AFTER', 'FIELDS'], rows)) print(line);
  for (const model of result.models.filter((m) => m.status === 'pullable')) print(`model ${model.id}: ${model.status}${model.status === 'pullable' ? (options.pull ? ' (pulled by this apply)' : ` (svc model pull ${model.id}, or apply with --pull)`) : ''}`);
  const m = result.memory;
  print(`memory: the named slots need about ${m.needed_mb} MB; ${m.ram_available_mb} MB RAM free + ${m.vram_mb} MB VRAM${m.fits ? '' : ' (does not fit)'}${m.unknown.length ? `; size unknown: ${m.unknown.join(', ')}` : ''}`);
  // The model guard's problems were the first lines.
  for (const p of (result.problems ?? []).filter((x) => x.guard !== 'model' || !result.unresolvable)) print(`refused by ${p.guard}: ${p.slot}: ${p.message}`);
  const failed = (result.results ?? []).filter((r) => !r.ok);
  for (const r of failed) print(`${r.runtime} ${r.slot} failed: ${r.error?.code}: ${r.error?.message}`);
  if (result.results) print(`files written in ${result.commit_ms} ms; slots converged in ${result.converge_ms} ms`);
  if (failed.length > 0 || (result.problems ?? []).length > 0) throw new CliExit(EXIT.failed, failed.length ? `${failed.length} slot(s) did not converge; the slot files are the stack's` : 'the apply would be refused');
}

export async function stackActive(client: ApiClient, options: Json): Promise<void> {
  const active = await client.activeStack();
  if (options.json) return printJson(active);
  if (active.status === 'none') return print('no stack applied');
  print(`${active.stack} (applied ${active.applied_at}): ${active.status}${active.drifted.length ? `; drifted: ${active.drifted.join(', ')}` : ''}`);
}
