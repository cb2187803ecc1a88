// Gated tools through the approvals queue, with the real fixture server: approved (the call
// then runs), denied, expired after approval_timeout_s, identical calls joined, and the
// queue's own errors; only the very same call from the same caller joins an entry.
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureSpec, mcpHarness, type McpHarness } from '../../test/helpers/mcp.js';
import { waitFor } from '../../test/helpers/wait.js';
import type { ApprovalEventData } from '../protocol/mcp.js';
import { ApprovalQueue, joinKey, MAX_PENDING, RESULT_KEPT_MAX_BYTES } from './approvals.js';

let h: McpHarness | undefined;
afterEach(async () => {
  await h?.service.stopAll();
  h = undefined;
});

async function gatedFixture(settings: Parameters<typeof mcpHarness>[0] = {}): Promise<McpHarness> {
  const harness = mcpHarness(settings);
  await harness.service.install({ spec: fixtureSpec(), id: 'fix' });
  await harness.service.patchTools('fix', { gated: ['add'] });
  await waitFor(() => harness.service.get('fix'), { what: 'fix to be ready', until: (v) => v.state === 'ready' });
  return harness;
}

describe('gated tools', () => {
  it('wait for approval, then run; the entry ends executed', async () => {
    h = await gatedFixture();
    const seen: ApprovalEventData[] = [];
    h.service.subscribeApprovals((e) => seen.push(e));
    const progress: unknown[] = [];
    const call = h.service.call('fix__add', { a: 1, b: 2 }, { scope: null, client: 'omni:r1' }, { onProgress: (p) => progress.push(p) });
    const [entry] = await waitFor(() => h!.service.listApprovals(), { what: 'the pending entry', until: (l) => l.length === 1 });
    expect(entry).toMatchObject({ tool: 'fix__add', server: 'fix', args: { a: 1, b: 2 }, client_id: 'omni:r1', state: 'pending', hit_count: 1 });
    expect(progress).toEqual([{ status: 'waiting_approval', approval_id: entry!.id }]);
    expect((await h.service.offered({ scope: null, client: 'x' })).find((t) => t.name === 'fix__add')?.policy).toBe('gated');

    expect(h.service.approve(entry!.id, 'tester')).toMatchObject({ state: 'approved', decided_by: 'tester' });
    await expect(call).resolves.toMatchObject({ text: '3' });
    expect(h.service.getApproval(entry!.id)).toMatchObject({ state: 'executed' });
    expect(() => h!.service.approve(entry!.id)).toThrow(expect.objectContaining({ code: 'approvals.already_resolved', details: expect.objectContaining({ state: 'executed' }) }));
    expect(() => h!.service.deny('nope')).toThrow(expect.objectContaining({ code: 'approvals.not_found' }));
    expect(seen.map((e) => e.kind)).toEqual(['snapshot', 'enqueued', 'approved', 'executed']);
    const tools = h.events.filter((e) => e.type.startsWith('mcp.tool.')).map((e) => e.type);
    expect(tools).toEqual(['mcp.tool.invoked', 'mcp.tool.enqueued', 'mcp.tool.approved', 'mcp.tool.executed']);
    expect(h.events.filter((e) => e.type.startsWith('approval.')).map((e) => e.type)).toEqual(['approval.enqueued', 'approval.resolved', 'approval.resolved']);
  });

  it('fail with mcp.tool_failed when denied, and join identical pending calls', async () => {
    h = await gatedFixture();
    const caller = { scope: null, client: 'api' };
    const first = h.service.call('fix__add', { a: 5, b: 1 }, caller).catch((e: unknown) => e);
    const second = h.service.call('fix__add', { a: 5, b: 1 }, caller).catch((e: unknown) => e);
    const [entry] = await waitFor(() => h!.service.listApprovals(), { what: 'one joined entry', until: (l) => l.length === 1 && l[0]!.hit_count === 2 });
    h.service.deny(entry!.id);
    for (const result of [await first, await second]) expect(result).toMatchObject({ code: 'mcp.tool_failed', details: { reason: 'denied' } });
    expect(h.service.listApprovals()).toEqual([]);
  });

  it('expire after approval_timeout_s and say so', async () => {
    h = await gatedFixture({ approval_timeout_s: 0.2 });
    const error = await h.service.call('fix__add', { a: 1, b: 1 }, { scope: null, client: 'api' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'mcp.tool_failed', details: { reason: 'approval_timeout' } });
    expect((error as Error).message).toContain('approval_timeout_s');
    const id = (error as { details: { approval_id: string } }).details.approval_id;
    expect(h.service.getApproval(id)).toMatchObject({ state: 'expired' });
  });
});

describe('joining pending calls', () => {
  const queue = () => new ApprovalQueue({ timeoutMs: () => 60_000, onEnqueued: () => undefined, onResolved: () => undefined });
  const enqueue = (q: ApprovalQueue, args: Record<string, unknown>, caller: { client: string; identity?: string; agent?: string }) =>
    q.enqueue({ tool: 'svc-admin__slot_load', server: 'svc-admin', args, client: caller.client, key: joinKey('svc-admin__slot_load', caller, args) });

  it('joins only the same call from the same caller, whatever the key order', () => {
    const q = queue();
    const me = { client: 'mcp:10.0.0.5', identity: 'address:10.0.0.5' };
    const one = enqueue(q, { name: 'p2', opts: { b: 1, a: 2 } }, me);
    const same = enqueue(q, { opts: { a: 2, b: 1 }, name: 'p2' }, me);
    expect(same.entry.id).toBe(one.entry.id);
    expect(q.list()).toHaveLength(1);
    expect(q.list()[0]!.hit_count).toBe(2);
    q.close();
  });

  it('keeps a call with other arguments, or from another caller or agent, its own entry', () => {
    const q = queue();
    const me = { client: 'mcp:10.0.0.5', identity: 'address:10.0.0.5' };
    const shown = enqueue(q, { name: 'p2' }, me);
    const more = enqueue(q, { name: 'p2', model: 'tiny-two' }, me);
    const other = enqueue(q, { name: 'p2' }, { client: 'mcp:10.0.0.6', identity: 'address:10.0.0.6' });
    const token = enqueue(q, { name: 'p2' }, { client: 'mcp:10.0.0.5', identity: 'token:abc' });
    const agent = enqueue(q, { name: 'p2' }, { ...me, agent: 'pi' });
    const ids = [shown, more, other, token, agent].map((c) => c.entry.id);
    expect(new Set(ids).size).toBe(5);
    expect(q.list().map((e) => [e.args, e.hit_count])).toEqual([
      [{ name: 'p2' }, 1], [{ name: 'p2', model: 'tiny-two' }, 1], [{ name: 'p2' }, 1], [{ name: 'p2' }, 1], [{ name: 'p2' }, 1],
    ]);
    q.close();
  });
});

describe('the bounds of the approvals queue', () => {
  const queue = () => new ApprovalQueue({ timeoutMs: () => 60_000, onEnqueued: () => undefined, onResolved: () => undefined });
  const call = (n: number) => ({ tool: 't', server: 's', args: { n }, client: 'c', key: String(n) });

  it('refuses a call past MAX_PENDING pending ones at once, and takes one again after a decision', async () => {
    const q = queue();
    const decisions = Array.from({ length: MAX_PENDING }, (_, n) => q.enqueue(call(n)));
    expect(() => q.enqueue(call(MAX_PENDING))).toThrow(expect.objectContaining({ code: 'mcp.tool_failed', details: expect.objectContaining({ reason: 'approvals_full', pending: MAX_PENDING, max: MAX_PENDING }) }));
    expect(q.list()).toHaveLength(MAX_PENDING);
    q.deny(decisions[0]!.entry.id, 'tester');
    expect(q.enqueue(call(MAX_PENDING)).entry.state).toBe('pending');
    q.close();
    await Promise.all(decisions.map((d) => d.decision));
  });

  it('keeps a huge result of an approved call as a note of its size', () => {
    const q = queue();
    const small = q.enqueue(call(1));
    const huge = q.enqueue(call(2));
    for (const { entry } of [small, huge]) q.approve(entry.id, 'tester');
    q.complete(small.entry.id, { ok: true, result: { text: 'ok' } });
    q.complete(huge.entry.id, { ok: true, result: { text: 'x'.repeat(RESULT_KEPT_MAX_BYTES) } });
    expect(q.get(small.entry.id)!.result).toEqual({ text: 'ok' });
    expect(q.get(huge.entry.id)!.result).toEqual({ truncated: true, bytes: RESULT_KEPT_MAX_BYTES + 11 });
  });
});
