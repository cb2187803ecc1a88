import { describe, expect, it } from 'vitest';
import { slotFileRules } from './rules.js';

type Doc = { slot?: Record<string, unknown>; rpc?: Record<string, unknown> };
const problems = ({ slot, rpc }: Doc) => slotFileRules({ file: 'slots/w.toml', stem: 'w', doc: { slot: { name: 'w', port: 8090, ...slot }, ...(rpc && { rpc }) } });
const worker = (rpc: Record<string, unknown>) => problems({ slot: { provider: 'llama-rpc', type: 'rpc-worker' }, rpc });

describe('llama.cpp RPC slot rules', () => {
  it('an rpc-server binds a private address: loopback (the default), RFC 1918, link-local', () => {
    expect(problems({ slot: { provider: 'llama-rpc', type: 'rpc-worker' } })).toEqual([]);
    for (const host of ['10.1.2.3', '172.20.0.5', '192.168.0.10', '169.254.1.1', '127.0.0.1']) expect(worker({ host }), host).toEqual([]);
  });

  it('a public address or the wildcard is a config error naming rpc.host, unless allow_public', () => {
    for (const host of ['8.8.8.8', '0.0.0.0', '100.64.0.1']) {
      expect(worker({ host }), host).toEqual([expect.objectContaining({ file: 'slots/w.toml', path: 'rpc.host', severity: 'error', message: expect.stringMatching(/no authentication.*rpc\.allow_public = true/) })]);
      expect(worker({ host, allow_public: true }), host).toEqual([]);
    }
  });

  it('provider llama-rpc and type rpc-worker go together', () => {
    expect(problems({ slot: { provider: 'llama-rpc' } })).toEqual([expect.objectContaining({ path: 'slot.type', severity: 'error' })]);
    expect(problems({ slot: { type: 'rpc-worker' } })).toEqual([expect.objectContaining({ path: 'slot.provider', severity: 'error' })]);
  });

  it('rpc_workers only on llama-server; [rpc] elsewhere is read by nothing (a warning)', () => {
    expect(problems({ slot: { rpc_workers: ['10.0.0.2:8090'] } })).toEqual([]);
    expect(problems({ slot: { provider: 'builtin', rpc_workers: ['10.0.0.2:8090'] } })).toEqual([expect.objectContaining({ path: 'slot.rpc_workers', severity: 'error' })]);
    expect(problems({ rpc: { host: '10.0.0.2' } })).toEqual([expect.objectContaining({ path: 'rpc', severity: 'warning' })]);
  });
});
