import { describe, expect, it } from 'vitest';
import { formatDuration, formatMb } from './format.js';

describe('format', () => {
  it('reads sizes and durations', () => {
    expect(formatMb(512)).toBe('512 MiB');
    expect(formatMb(3072)).toBe('3.0 GiB');
    expect(formatDuration(42)).toBe('42s');
    expect(formatDuration(125)).toBe('2m 5s');
    expect(formatDuration(3 * 3600 + 61)).toBe('3h 1m');
    expect(formatDuration(2 * 86_400 + 3600)).toBe('2d 1h');
    expect(formatDuration(-5)).toBe('0s');
  });
});
