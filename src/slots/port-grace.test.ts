import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { portFreeWithin, portIsFree } from '../lib/process.js';

const listen = () => new Promise<{ port: number; close: () => Promise<void> }>((resolve) => {
  const server = createServer().listen(0, '127.0.0.1', () => resolve({ port: (server.address() as { port: number }).port, close: () => new Promise((done) => server.close(() => done())) }));
});

describe('portFreeWithin', () => {
  it('waits for a port released a moment later (an engine\'s helper still holding it)', async () => {
    const held = await listen();
    expect(await portIsFree(held.port)).toBe(false);
    setTimeout(() => void held.close(), 200);
    expect(await portFreeWithin(held.port, 5_000)).toBe(true);
  });

  it('gives up on a port that stays taken', async () => {
    const held = await listen();
    expect(await portFreeWithin(held.port, 300)).toBe(false);
    await held.close();
  });
});
