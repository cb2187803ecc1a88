// Ports for tests: one the OS says is free, or one free in the slot range (8081-8200).
import { createServer } from 'node:net';
import { portIsFree } from '../../src/slots/process.js';

export function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

const handedOut = new Set<number>();

/** A slot port (8100-8199) free now and not handed out before in this process. */
export async function freeSlotPort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 8100 + Math.floor(Math.random() * 100);
    if (!handedOut.has(port) && (await portIsFree(port))) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free port in 8100-8199');
}
