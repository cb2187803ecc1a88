import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostCapacity } from './capacity.js';

describe('host capacity', () => {
  it('before any probe: the RAM available now, no VRAM', async () => {
    const capacity = await hostCapacity({ configRoot: join(mkdtempSync(join(tmpdir(), 'svc-capacity-')), 'none') });
    expect(capacity.vramMb).toBe(0);
    expect(capacity.ramAvailableMb).toBeGreaterThan(0);
  });
});
