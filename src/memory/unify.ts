// `svc memory migrate unify` (POST /api/memory/migrate/unify; docs/memory.md "Unifying banks"):
// copies the items of source banks (private__hermes, a bank from before unified_bank) into a
// target bank on the SQL store, through the bank export/import machinery (exportPage,
// importItem). A dry-run answers the plan only. The sources are left as they are.
//
// A private bank's items get its owner's identity tags (agent:<id>, visibility:private), so
// that in the shared target they stay visible to that agent only. A copied item's id is
// derived from (target, source, id): a second run meets its own copies, and `on_conflict`
// decides for them as an import does (skip, replace, or a new id).
import { createHash } from 'node:crypto';
import { SvcError } from '../protocol/errors.js';
import type { MemoryUnifyAnswer, MemoryUnifyRequest, MemoryUnifySource } from '../protocol/memory.js';
import { agentTag, checkBankId, PRIVATE_TAG } from './identity.js';
import type { MemoryDeps } from './service.js';
import { dimensionMismatch } from './store.js';
import type { BankAccess, MemoryBankAdmin } from './types.js';

const PAGE = 500;
const PRIVATE_BANK = /^private__([a-zA-Z0-9_-]{1,64})$/;

/** A UUID (version 5 layout) from the copy's provenance: the same item unified twice gets the same id. */
export function unifiedId(target: string, source: string, id: string): string {
  const hex = createHash('sha1').update(`svc-unify\u0000${target}\u0000${source}\u0000${id}`).digest('hex').slice(0, 32).split('');
  hex[12] = '5';
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The tags a source's items get in the target: a private bank's owner tags, then the caller's. */
export function tagsToAdd(source: string, extra: readonly string[]): string[] {
  const owner = PRIVATE_BANK.exec(source)?.[1];
  return [...new Set([...(owner ? [agentTag(owner), PRIVATE_TAG] : []), ...extra])];
}

export class MemoryUnify {
  constructor(private readonly banks: BankAccess, private readonly deps: MemoryDeps) {}

  async run(body: MemoryUnifyRequest, actor: string): Promise<MemoryUnifyAnswer> {
    const target = checkBankId(body.target);
    const sources = [...new Set(body.sources.map(checkBankId))];
    if (sources.includes(target)) {
      throw new SvcError('request.invalid', `bank "${target}" is both a source and the target of the unify`, { problems: [{ path: 'sources', message: `the target "${target}" cannot be a source` }] });
    }
    const admin = await this.banks.admin();
    const targetBank = await admin.bank(target);
    const plan: MemoryUnifySource[] = [];
    for (const bank of sources) {
      const known = await admin.bank(bank);
      if (!known) throw new SvcError('memory.bank_not_found', `no memory bank "${bank}" to unify from`, { bank });
      const activity = await admin.activity(bank);
      plan.push({ bank, items: activity.items, observations: activity.observations, last_activity: activity.last_at, dimension: known.dimension, tags_to_add: tagsToAdd(bank, body.add_tags) });
    }
    // Every dimension is checked before anything is written: a bank with items of another
    // dimension than the target (or than another source, for a new target) is refused.
    let dimension = targetBank?.dimension ?? null;
    for (const source of plan) {
      if (source.dimension === null || source.items === 0) continue;
      if (dimension !== null && source.dimension !== dimension) throw dimensionMismatch(target, dimension, source.dimension);
      dimension ??= source.dimension;
    }
    const answer: MemoryUnifyAnswer = {
      target, dry_run: !body.apply, on_conflict: body.on_conflict, skip_observations: body.skip_observations, target_dimension: dimension, sources: plan,
      totals: { items: plan.reduce((n, s) => n + s.items - (body.skip_observations ? s.observations : 0), 0), added: 0, replaced: 0, skipped: 0 },
    };
    if (!body.apply) return answer;

    if (!targetBank) await this.banks.put(target, { ...(dimension !== null && { dimension }) }, actor);
    for (const source of plan) {
      Object.assign(source, await this.copy(admin, source, target, body));
      for (const key of ['added', 'replaced', 'skipped'] as const) answer.totals[key] += source[key] ?? 0;
    }
    const { added, replaced, skipped } = answer.totals;
    this.deps.publish({ type: 'memory.unified', source: `memory:${target}`, message: `${added} memories unified into ${target} from ${sources.join(', ')} (${replaced} replaced, ${skipped} skipped)`, data: { target, sources, added, replaced, skipped } });
    this.deps.record({ action: 'memory.unify', actor, target, details: { sources, added, replaced, skipped, on_conflict: body.on_conflict, skip_observations: body.skip_observations, add_tags: body.add_tags } });
    return answer;
  }

  /** One source, a page at a time in id order (observations left behind with skip_observations are not counted). */
  private async copy(admin: MemoryBankAdmin, source: MemoryUnifySource, target: string, body: MemoryUnifyRequest): Promise<{ added: number; replaced: number; skipped: number }> {
    const counts = { added: 0, replaced: 0, skipped: 0 };
    for (let after: string | null = null; ;) {
      const rows = await admin.exportPage(source.bank, after, PAGE);
      if (rows.length === 0) return counts;
      after = rows.at(-1)!.id;
      for (const row of rows) {
        if (body.skip_observations && row.type === 'observation') continue;
        const copy = { ...row, id: unifiedId(target, source.bank, row.id), tags: [...new Set([...row.tags, ...source.tags_to_add])] };
        counts[await admin.importItem(target, copy, body.on_conflict)] += 1;
      }
    }
  }
}
