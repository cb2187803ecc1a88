// A bank's export and import (docs/memory.md, "Export and import"): JSON lines, one item a
// line with its embedding, read from the store a page at a time (an export never holds the
// bank in memory). An import checks each line and the bank's dimension before it writes;
// `on_conflict` says what an item whose id is taken does: skip it, replace it (only an item of
// this bank), or take a new id.
import { SvcError } from '../protocol/errors.js';
import { type MemoryExportLine, MemoryExportLineSchema, type MemoryImportAnswer } from '../protocol/memory.js';
import type { MemoryQuota } from './quota.js';
import type { MemoryDeps } from './service.js';
import { dimensionMismatch } from './store.js';
import type { BankAccess, MemoryImportConflict } from './types.js';

const PAGE = 500;

export class MemoryBankTransfer {
  constructor(private readonly banks: BankAccess, private readonly deps: MemoryDeps, private readonly quota: MemoryQuota) {}

  /** The bank's items as JSON lines, page by page; the bank is checked before the first line. */
  async export(bank: string): Promise<AsyncIterable<string>> {
    const admin = await this.banks.existingAdmin(bank);
    return (async function* lines() {
      let after: string | null = null;
      for (;;) {
        const rows = await admin.exportPage(bank, after, PAGE);
        if (rows.length === 0) return;
        yield rows.map((row) => `${JSON.stringify(row)}\n`).join('');
        after = rows.at(-1)!.id;
      }
    })();
  }

  /** Every line checked first (nothing written when one is bad), then written in order. */
  async importLines(bank: string, body: string, onConflict: MemoryImportConflict, actor: string): Promise<MemoryImportAnswer> {
    const lines = parseLines(body);
    const admin = await this.banks.admin();
    const known = await admin.bank(bank);
    const dimension = known?.dimension ?? lines[0]?.embedding.length ?? null;
    lines.forEach((line, at) => {
      if (dimension !== null && line.embedding.length !== dimension) {
        const error = dimensionMismatch(bank, dimension, line.embedding.length);
        throw new SvcError('memory.dimension_mismatch', `line ${at + 1}: ${error.message}`, { ...error.details, line: at + 1 });
      }
    });
    if (!known) await this.banks.put(bank, { ...(dimension !== null && { dimension }) }, actor);
    // Room for every line, before any is written: an import that might not fit is refused whole.
    await this.quota.reserve(await this.banks.store(), bank, lines.length);
    const answer: MemoryImportAnswer = { bank, added: 0, replaced: 0, skipped: 0, on_conflict: onConflict };
    try {
      for (const line of lines) answer[await admin.importItem(bank, line, onConflict)] += 1;
    } finally {
      this.quota.commit(bank, answer.added);
      this.quota.release(bank, lines.length - answer.added);
    }
    this.deps.publish({ type: 'memory.imported', source: `memory:${bank}`, message: `${answer.added} memories imported into ${bank} (${answer.replaced} replaced, ${answer.skipped} skipped)`, data: { bank, added: answer.added, replaced: answer.replaced, skipped: answer.skipped } });
    this.deps.record({ action: 'memory.import', actor, target: bank, details: { ...answer } });
    return answer;
  }
}

function parseLines(body: string): MemoryExportLine[] {
  const out: MemoryExportLine[] = [];
  body.split('\n').forEach((raw, at) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new SvcError('memory.import_invalid', `line ${at + 1} is not JSON: ${(error as Error).message}`, { line: at + 1 });
    }
    const parsed = MemoryExportLineSchema.safeParse(value);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
      throw new SvcError('memory.import_invalid', `line ${at + 1} is not an exported memory: ${problems.map((p) => `${p.path || '(line)'}: ${p.message}`).join('; ')}`, { line: at + 1, problems });
    }
    out.push(parsed.data);
  });
  return out;
}
