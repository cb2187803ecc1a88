// Who is writing and reading memory, and which bank that means (docs/memory.md
// "Namespaces and identity"). The agent comes from X-Svc-Agent (absent: anonymous), X-Svc-Private asks for
// the agent's private namespace. Namespaces map to banks by ':' -> '__'. With unified_bank
// every write lands in `shared`, a private one tagged so reads can keep it to its agent.
import { AGENT_ID_PATTERN, BANK_ID_PATTERN } from '../protocol/memory.js';
import { SvcError } from '../protocol/errors.js';

export const SHARED_BANK = 'shared';
export const ANONYMOUS_AGENT = 'anonymous';
export const PRIVATE_TAG = 'visibility:private';
const TRUE_VALUES = new Set(['1', 'true', 'yes', 'on']);

export interface MemoryIdentity {
  agent: string;
  private: boolean;
}

type HeaderValue = string | string[] | undefined;
const first = (value: HeaderValue) => (Array.isArray(value) ? value[0] : value);

/** The caller's identity from its headers; a malformed agent id is 400 memory.agent_id_invalid. */
export function identityFromHeaders(headers: Record<string, HeaderValue>): MemoryIdentity {
  const raw = first(headers['x-svc-agent']);
  const agent = raw === undefined || raw === '' ? ANONYMOUS_AGENT : raw;
  if (!AGENT_ID_PATTERN.test(agent)) {
    throw new SvcError('memory.agent_id_invalid', `X-Svc-Agent must match ${AGENT_ID_PATTERN.source}; got ${JSON.stringify(agent.slice(0, 80))}`, { header: 'X-Svc-Agent' });
  }
  const priv = TRUE_VALUES.has((first(headers['x-svc-private']) ?? '').trim().toLowerCase());
  return { agent, private: priv };
}

export const agentTag = (agent: string) => `agent:${agent}`;

/** `shared` or `private:<agent>` to its bank id. */
export function bankOfNamespace(namespace: string): string {
  if (namespace !== SHARED_BANK && !/^private:[a-zA-Z0-9_-]{1,64}$/.test(namespace)) {
    throw new SvcError('memory.namespace_invalid', `a namespace is "shared" or "private:<agent>"; got ${JSON.stringify(namespace.slice(0, 80))}`, { namespace });
  }
  return namespace.replace(':', '__');
}

/** A bank id from a path or a query, checked before it reaches the store. */
export function checkBankId(bank: string): string {
  if (!BANK_ID_PATTERN.test(bank)) throw new SvcError('memory.invalid_bank', `a bank id matches ${BANK_ID_PATTERN.source}; got ${JSON.stringify(bank.slice(0, 80))}`, { bank });
  return bank;
}

/** Where a write goes and the tags it carries. */
export function writeTarget(identity: MemoryIdentity, unifiedBank: boolean): { bank: string; tags: string[] } {
  const tags = [agentTag(identity.agent), ...(identity.private ? [PRIVATE_TAG] : [])];
  const bank = identity.private && !unifiedBank ? bankOfNamespace(`private:${identity.agent}`) : SHARED_BANK;
  return { bank, tags };
}

/** The banks a read spans: shared, and the caller's own private bank when banks are separate. */
export function readBanks(identity: MemoryIdentity, unifiedBank: boolean): string[] {
  return unifiedBank ? [SHARED_BANK] : [SHARED_BANK, bankOfNamespace(`private:${identity.agent}`)];
}

/**
 * Whether an item may be shown to `agent`: private items only to the agent that wrote them.
 * The store filters in SQL too (excludeTags); this is the check on what comes back.
 */
export function visibleTo(agent: string, tags: readonly string[]): boolean {
  return !tags.includes(PRIVATE_TAG) || tags.includes(agentTag(agent));
}

/** Where a list page starts: the `bank@offset` cursor of the page before, over the banks the caller reads (the pgvector store and the engine adapters alike). */
export function parseListCursor(banks: readonly string[], cursor: string | undefined): { bankAt: number; offset: number } {
  if (cursor === undefined) return { bankAt: 0, offset: 0 };
  const match = /^([a-zA-Z0-9_-]{1,128})@(\d{1,9})$/.exec(cursor);
  const bankAt = match ? banks.indexOf(match[1]!) : -1;
  if (!match || bankAt < 0) throw new SvcError('memory.invalid_bank', `the cursor is <bank>@<offset> for one of ${banks.join(', ')}; got ${JSON.stringify(cursor.slice(0, 80))}`, { cursor });
  return { bankAt, offset: Number(match[2]) };
}
