// `svc memory migrate --from hindsight` (POST /api/memory/migrate/hindsight; docs/memory.md
// "Moving from Hindsight"): a Hindsight daemon's banks copied into svc's pgvector store, each
// text embedded again with the embedding slot (the daemon's vectors are its own model's). A
// dry-run (the default) counts what would be copied. The daemon is [memory].hindsight_url
// (else SVC_HINDSIGHT_URL, else :9177), whatever [memory].engine says.
//
// Resumable: after each page the state file <state>/memory/migrate-state.json (written
// atomically) says how far each bank got; `resume` goes on from there. A copy's id is derived
// from the bank and the daemon's id, so a page copied twice (a crash between the write and
// the state) is skipped the second time, not duplicated.
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../config/atomic.js';
import { SvcError } from '../protocol/errors.js';
import type { MemoryHindsightMigrateAnswer, MemoryHindsightMigrateBank, MemoryHindsightMigrateRequest, MemoryItem } from '../protocol/memory.js';
import { MEMORY_ITEM_TYPES } from '../protocol/memory.js';
import { agentTag, checkBankId } from './identity.js';
import { embed } from './model-calls.js';
import type { MemoryDeps, MemoryService } from './service.js';
import { unifiedId } from './unify.js';
import type { BankAccess } from './types.js';
import { hindsightClient } from './adapters/select.js';

const PAGE = 100;

interface MigrateState { from: 'hindsight'; banks: Record<string, { offset: number; done: boolean; added: number; skipped: number }>; updated_at: string }

export const migrateStatePath = (stateRoot: string) => join(stateRoot, 'memory', 'migrate-state.json');

export class MemoryHindsightMigrate {
  constructor(private readonly banks: BankAccess, private readonly service: MemoryService, private readonly deps: MemoryDeps) {}

  private keep(item: MemoryItem, body: MemoryHindsightMigrateRequest): boolean {
    if (body.agent !== undefined && item.bank !== `private__${body.agent}` && !item.tags.includes(agentTag(body.agent))) return false;
    if (body.dataset !== undefined && item.dataset !== body.dataset) return false;
    return body.since === undefined || (item.timestamp !== '' && Date.parse(item.timestamp) >= Date.parse(body.since));
  }

  private async readState(file: string): Promise<MigrateState | null> {
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null) return null;
    try {
      const state = JSON.parse(text) as MigrateState;
      return state.from === 'hindsight' && typeof state.banks === 'object' ? state : null;
    } catch {
      return null; // a state file that cannot be read is no progress: the copy starts over (and skips what it holds)
    }
  }

  async run(body: MemoryHindsightMigrateRequest, actor: string): Promise<MemoryHindsightMigrateAnswer> {
    const settings = this.deps.config().svc.memory;
    const store = await this.service.store(); // memory off or not pgvector is refused here
    const admin = await this.banks.admin();
    const client = hindsightClient(settings);
    const stateFile = migrateStatePath(this.deps.stateRoot ?? '.');
    const previous = body.resume ? await this.readState(stateFile) : null;
    if (body.resume && !previous) throw new SvcError('request.invalid', `nothing to resume: no migrate state at ${stateFile}`, { problems: [{ path: 'resume', message: 'no migrate state to resume from' }], state_file: stateFile });
    const state: MigrateState = previous ?? { from: 'hindsight', banks: {}, updated_at: new Date().toISOString() };
    const daemonBanks = (await client.banks()).map((b) => b.id).filter((id) => body.agent === undefined || id === 'shared' || id === `private__${body.agent}`).sort();
    const answer: MemoryHindsightMigrateAnswer = { from: 'hindsight', to: 'pgvector', dry_run: !body.apply, resumed: previous !== null, state_file: stateFile, banks: [], totals: { items: 0, added: 0, skipped: 0 } };

    if (body.apply) await mkdir(dirname(stateFile), { recursive: true });
    for (const bank of daemonBanks.map(checkBankId)) {
      const at = state.banks[bank] ?? { offset: 0, done: false, added: 0, skipped: 0 };
      const report: MemoryHindsightMigrateBank = { bank, items: 0, added: at.added, skipped: at.skipped, offset: body.apply ? at.offset : 0, done: body.apply && at.done };
      answer.banks.push(report);
      while (!report.done) {
        const page = await client.page(bank, report.offset, PAGE);
        const items = page.items.filter((item) => this.keep(item, body));
        report.items += items.length;
        if (body.apply) {
          for (const item of items) {
            const embedding = await embed(this.deps.dispatcher, settings.embedding.embed_model, item.text);
            await this.service.ensureBank(store, bank, embedding.length);
            const outcome = await admin.importItem(bank, {
              id: unifiedId(bank, 'hindsight', item.id), text: item.text, dataset: item.dataset, tags: item.tags, metadata: item.metadata, document_id: null,
              type: (MEMORY_ITEM_TYPES as readonly string[]).includes(item.type) ? item.type : 'world',
              timestamp: item.timestamp !== '' && !Number.isNaN(Date.parse(item.timestamp)) ? item.timestamp : new Date().toISOString(), embedding,
            }, 'skip');
            report[outcome === 'added' ? 'added' : 'skipped'] += 1;
          }
        }
        report.offset += page.rows;
        report.done = page.rows < PAGE;
        if (body.apply) {
          state.banks[bank] = { offset: report.offset, done: report.done, added: report.added, skipped: report.skipped };
          state.updated_at = new Date().toISOString();
          await writeFileAtomic(stateFile, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
        }
      }
      answer.totals.items += report.items;
      answer.totals.added += report.added;
      answer.totals.skipped += report.skipped;
    }
    if (body.apply) {
      const { added, skipped } = answer.totals;
      this.deps.publish({ type: 'memory.migrated', source: 'memory', message: `${added} memories copied from the hindsight daemon (${skipped} skipped)`, data: { from: 'hindsight', banks: daemonBanks, added, skipped } });
      this.deps.record({ action: 'memory.migrate', actor, target: 'hindsight', details: { banks: daemonBanks, added, skipped, resumed: answer.resumed, agent: body.agent ?? null, dataset: body.dataset ?? null, since: body.since ?? null } });
    }
    return answer;
  }
}
