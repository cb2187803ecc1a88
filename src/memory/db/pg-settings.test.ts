import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedBuffersMb, storeBytes } from './pg-settings.js';

describe('the embedded database\'s shared_buffers', () => {
  it('holds the store and a quarter more, between 16 MB and PGlite\'s default 128 MB', () => {
    expect(sharedBuffersMb(0)).toBe(16);
    expect(sharedBuffersMb(8 * 1024 * 1024)).toBe(16);
    expect(sharedBuffersMb(40 * 1024 * 1024)).toBe(50);
    expect(sharedBuffersMb(2 * 1024 * 1024 * 1024)).toBe(128);
  });

  it('measures the largest database of the data directory (the store), not the templates beside it; nothing before initdb', async () => {
    const data = mkdtempSync(join(tmpdir(), 'svc-pg-settings-'));
    try {
      expect(await storeBytes(data)).toBe(0);
      for (const [db, sizes] of [['1', [1000, 2000]], ['5', [5000, 7000, 100]]] as const) {
        mkdirSync(join(data, 'base', db), { recursive: true });
        sizes.forEach((size, i) => writeFileSync(join(data, 'base', db, String(16384 + i)), Buffer.alloc(size)));
      }
      expect(await storeBytes(data)).toBe(12_100);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});
