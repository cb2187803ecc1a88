import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ancestry, listeningInodes, portOwner } from './port-owner.js';

const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 4343 1 0000000000000000 20 4 30 10 -1
   2: 00000000:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4444 1 0000000000000000 100 0 0 10 0`;

describe('port owners', () => {
  it('reads the listening sockets of a port from /proc/net/tcp, not its connections', () => {
    expect(listeningInodes([TCP], 8080)).toEqual(['4242']);
    expect(listeningInodes([TCP], 8081)).toEqual(['4444']);
    expect(listeningInodes([TCP], 9)).toEqual([]);
  });

  it('finds this process behind a socket it listens on, and its parents', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    try {
      expect(await portOwner(port)).toMatchObject({ listening: true, pid: process.pid });
    } finally {
      server.close();
    }
    const chain = await ancestry(process.pid);
    expect(chain[0]).toBe(process.pid);
    expect(chain[1]).toBe(process.ppid);
  });
});
