import { describe, expect, it } from 'vitest';
import { SlotFileSchema } from '../../config/schema/slot.js';
import { CONTEXT_CAP } from './argv.js';
import { requestContextSize } from './request-context.js';

const slot = (extra: { context_size?: number; workers?: number; extra_args?: string } = {}) => SlotFileSchema.parse({
  slot: { name: 'chat', port: 8081, ...(extra.workers && { workers: extra.workers }) },
  model: { default: 'tiny', ...(extra.context_size && { context_size: extra.context_size }) },
  server: { ...(extra.extra_args && { extra_args: extra.extra_args }) },
});

describe('requestContextSize', () => {
  it("is the slot's context_size, else the native window as the engine is started with it", () => {
    expect(requestContextSize(slot({ context_size: 2048 }), 4096)).toBe(2048);
    expect(requestContextSize(slot(), 4096)).toBe(4096);
    expect(requestContextSize(slot(), 131_072)).toBe(CONTEXT_CAP);
    expect(requestContextSize(slot(), null)).toBeNull();
  });

  it('takes a -c in extra_args over the configured size, as the command line does', () => {
    expect(requestContextSize(slot({ context_size: 4096, extra_args: '-c 1024' }), 8192)).toBe(1024);
    expect(requestContextSize(slot({ extra_args: '--ctx-size=1536 --temp 0.2' }), null)).toBe(1536);
  });

  it('divides it among the parallel sequences, unless the cache is unified', () => {
    expect(requestContextSize(slot({ context_size: 4096, workers: 4 }), null)).toBe(1024);
    expect(requestContextSize(slot({ context_size: 4096, extra_args: '-np 2' }), null)).toBe(2048);
    expect(requestContextSize(slot({ context_size: 4096, workers: 4, extra_args: '--kv-unified' }), null)).toBe(4096);
  });
});
