import { describe, expect, it } from 'vitest';
import type { AgentActivityEvent } from '../../protocol/agents.js';
import { runFailure } from './agent-run.js';

const request = (outcome: string, error: AgentActivityEvent['error'] = null): AgentActivityEvent => ({
  id: 1, timestamp: '2026-11-27T10:00:00Z', tool: 'POST /v1/chat/completions', args: {}, gated: false, outcome, client_id: 'agent:pi', error,
});

describe('runFailure', () => {
  it("says the last request's error and how many failed", () => {
    const exceeded = { code: 'request.context_exceeded', message: 'the request exceeds the available context size' };
    expect(runFailure('pi', [request('error', exceeded), request('error', exceeded)]))
      .toBe("svc: pi's last request to the gateway (POST /v1/chat/completions) failed: request.context_exceeded: the request exceeds the available context size (2 of 2 requests of this run failed)");
  });

  it('is null when the last request went through, or there was none', () => {
    expect(runFailure('pi', [request('error', { code: 'slot.not_ready', message: 'loading' }), request('ok')])).toBeNull();
    expect(runFailure('pi', [])).toBeNull();
  });
});
