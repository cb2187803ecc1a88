import { describe, expect, it } from 'vitest';
import { formatMs, gatewayTiming, parseServerTiming } from './server-timing.js';
import { serverTimingValue } from '../../../../src/protocol/server-timing.js';

describe('parseServerTiming', () => {
  it('reads the gateway header as it writes it, with and without a slot load', () => {
    expect(parseServerTiming('svc;dur=0.091')).toEqual([{ name: 'svc', dur: 0.091, desc: null }]);
    expect(parseServerTiming('svc;dur=0.091, load;dur=1840.2')).toEqual([
      { name: 'svc', dur: 0.091, desc: null },
      { name: 'load', dur: 1840.2, desc: null },
    ]);
  });

  it('reads what the gateway really writes', () => {
    const header = serverTimingValue(10.5, 50);
    expect(gatewayTiming(header)).toEqual({ overheadMs: 10.5, loadMs: 50 });
  });

  it('keeps an engine entry before svc’s, quoted descs with commas, and skips junk', () => {
    const entries = parseServerTiming('engine;desc="a, b; c";dur=12, ;dur=3, bad name;dur=1, svc;dur=abc, svc;dur=0.5;dur=9');
    expect(entries).toEqual([
      { name: 'engine', dur: 12, desc: 'a, b; c' },
      { name: 'svc', dur: null, desc: null },
      { name: 'svc', dur: 0.5, desc: null },
    ]);
  });

  it('answers nothing for no header', () => {
    expect(parseServerTiming(null)).toEqual([]);
    expect(gatewayTiming(null)).toEqual({ overheadMs: null, loadMs: null });
  });
});

describe('gatewayTiming', () => {
  it('takes svc’s own entry, not an engine’s of another name, and the last svc one', () => {
    expect(gatewayTiming('cache;dur=40, svc;dur=1.5')).toEqual({ overheadMs: 1.5, loadMs: null });
    expect(gatewayTiming('svc;dur=7, svc;dur=2, load;dur=30')).toEqual({ overheadMs: 2, loadMs: 30 });
  });
});

describe('formatMs', () => {
  it('scales to what a person reads', () => {
    expect(formatMs(0.091)).toBe('0.091 ms');
    expect(formatMs(0)).toBe('0 ms');
    expect(formatMs(3.456)).toBe('3.5 ms');
    expect(formatMs(12.44)).toBe('12.4 ms');
    expect(formatMs(1840.2)).toBe('1.84 s');
  });
});
