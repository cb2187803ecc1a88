// Ports for tests: one the OS says is free, or one free in the slot range (8081-8200).
import { createServer } from 'node:net';
import { portIsFree } from '../../src/lib/process.js';
import { POOL_PORT_LIMIT } from '../../src/protocol/vocabulary.js';

export function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

const handedOut = new Set<number>();

/**
 * Slot ports must lie in 8081-8200 (the slot file's rule), and vitest runs test files in
 * several worker processes at once. Each worker draws from its own block of the range
 * (VITEST_POOL_ID), so two workers never hand out the same port: a port checked free in one
 * worker cannot be taken by an engine another worker starts a moment later.
 */
const SLOT_PORT_FIRST = 8101;
const SLOT_PORT_BLOCKS = 4;
const SLOT_PORT_BLOCK_SIZE = 25; // 8101-8200

function slotPortBlock(): { first: number; size: number } {
  const pool = Number(process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? '1');
  const block = (Number.isInteger(pool) && pool > 0 ? pool - 1 : 0) % SLOT_PORT_BLOCKS;
  return { first: SLOT_PORT_FIRST + block * SLOT_PORT_BLOCK_SIZE, size: SLOT_PORT_BLOCK_SIZE };
}

/** A slot port free now and not handed out before in this worker, from this worker's block. */
export async function freeSlotPort(): Promise<number> {
  const { first, size } = slotPortBlock();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = first + Math.floor(Math.random() * size);
    if (!handedOut.has(port) && (await portIsFree(port))) {
      handedOut.add(port);
      return port;
    }
  }
  // A file that needs more than its block: any free port of the whole range.
  for (let port = SLOT_PORT_FIRST; port < SLOT_PORT_FIRST + SLOT_PORT_BLOCKS * SLOT_PORT_BLOCK_SIZE; port++) {
    if (!handedOut.has(port) && (await portIsFree(port))) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free slot port in ${SLOT_PORT_FIRST}-${SLOT_PORT_FIRST + SLOT_PORT_BLOCKS * SLOT_PORT_BLOCK_SIZE - 1}`);
}

/** A free slot port inside the range a [slots] pool may use (below POOL_PORT_LIMIT), for a pool of one. */
export async function freePoolPort(): Promise<number> {
  let port = await freeSlotPort();
  while (port >= POOL_PORT_LIMIT) port = await freeSlotPort();
  return port;
}
