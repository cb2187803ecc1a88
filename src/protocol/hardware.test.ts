import { describe, expect, it } from 'vitest';
import { memoryOf, vramTotalMb, type HardwareProbe } from './hardware.js';

const probe = (vram: Array<number | null>) => ({ memory: { total_mb: 32_000, available_mb: 1 }, gpus: vram.map((vram_mb) => ({ vram_mb })) }) as unknown as HardwareProbe;

describe('the probe\'s memory', () => {
  it('sums the VRAM of the probed GPUs, an unknown one as 0', () => {
    expect(vramTotalMb(probe([8_192, null, 16_384]))).toBe(24_576);
    expect(vramTotalMb(null)).toBe(0);
    expect(memoryOf(probe([4_096]))).toEqual({ ramMb: 32_000, vramMb: 4_096 });
    expect(memoryOf(null)).toEqual({ ramMb: 0, vramMb: 0 });
  });
});
