import { describe, expect, it } from 'vitest';
import { chooseReplica, type ReplicaCandidate } from './replica-choice.js';

const r = (id: string, over: Partial<ReplicaCandidate> = {}): ReplicaCandidate => ({ id, loaded: true, inFlight: 0, weight: 1, available: true, ...over });

describe('chooseReplica', () => {
  it('takes a replica with the model loaded before one that must load it, whatever their load', () => {
    expect(chooseReplica([r('peer:a', { loaded: false }), r('peer:b', { inFlight: 9 })])?.id).toBe('peer:b');
  });

  it('then the least in flight', () => {
    expect(chooseReplica([r('peer:a', { inFlight: 2 }), r('peer:b', { inFlight: 1 })])?.id).toBe('peer:b');
  });

  it('divides in-flight by the weight, and a heavier weight wins a tie', () => {
    expect(chooseReplica([r('peer:a', { inFlight: 3, weight: 4 }), r('peer:b', { inFlight: 1 })])?.id).toBe('peer:a');
    expect(chooseReplica([r('peer:a'), r('peer:b', { weight: 2 })])?.id).toBe('peer:b');
  });

  it('a local target wins a full tie; then the id decides, so the choice is repeatable', () => {
    expect(chooseReplica([r('peer:a'), r('slot:chat', { local: true })])?.id).toBe('slot:chat');
    expect(chooseReplica([r('peer:b'), r('peer:a')])?.id).toBe('peer:a');
  });

  it('passes over replicas whose breaker is open and those already tried; none left is undefined', () => {
    expect(chooseReplica([r('peer:a', { available: false }), r('peer:b', { loaded: false })])?.id).toBe('peer:b');
    expect(chooseReplica([r('peer:a'), r('peer:b', { inFlight: 5 })], new Set(['peer:a']))?.id).toBe('peer:b');
    expect(chooseReplica([r('peer:a', { available: false })], new Set())).toBeUndefined();
    expect(chooseReplica([])).toBeUndefined();
  });

  it('spreads concurrent requests when each choice is counted in flight', () => {
    const set = [r('peer:a'), r('peer:b')];
    const sent: string[] = [];
    for (let i = 0; i < 6; i++) {
      const pick = chooseReplica(set)!;
      pick.inFlight++;
      sent.push(pick.id);
    }
    expect(sent.filter((id) => id === 'peer:a')).toHaveLength(3);
  });
});
