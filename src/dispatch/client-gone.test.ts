import { describe, expect, it } from 'vitest';
import { ClientGone } from './client-gone.js';

describe('ClientGone', () => {
  it('emits abort once and says so', () => {
    const gone = new ClientGone();
    let heard = 0;
    gone.on('abort', () => heard++);
    expect(gone.aborted).toBe(false);
    gone.abort();
    gone.abort();
    expect(gone.aborted).toBe(true);
    expect(heard).toBe(1);
  });

  it('hands out one AbortSignal that follows it, made before or after the abort', () => {
    const early = new ClientGone();
    const signal = early.signal;
    expect(early.signal).toBe(signal);
    expect(signal.aborted).toBe(false);
    early.abort();
    expect(signal.aborted).toBe(true);

    const late = new ClientGone();
    late.abort();
    expect(late.signal.aborted).toBe(true);
  });
});
