// The TCP connections this process opened itself. A request the gateway sends to its own
// port (a tool server URL, a reload nudge, a peer or memory URL that names it) arrives from
// loopback, and in default mode loopback is the host: without this, any URL a client may set
// would lend it the host's powers. Every client socket of the process (node:net, node:http,
// fetch and undici all connect through net.connect) is announced on the `net.client.socket`
// diagnostics channel; a connection whose far end is one of them is the process talking to
// itself, whichever component or library made it, and is judged as a LAN client.
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { clientKeys, isLoopbackAddress } from './addresses.js';

/** The two ends of a connection, as a net.Socket names them. */
export interface ConnectionEnds {
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
  readonly localAddress?: string | undefined;
  readonly localPort?: number | undefined;
}

const open = new Set<Socket>();
let tracking = false;

/** Start noting this process's client sockets (idempotent; the gateway calls it before it listens). */
export function trackOwnSockets(): void {
  if (tracking) return;
  tracking = true;
  subscribe('net.client.socket', (message) => {
    const { socket } = message as { socket: Socket };
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
}

const same = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && clientKeys(a).address === clientKeys(b).address;

/**
 * Whether the far end of `connection` (a server-side socket) is a socket this process opened:
 * all four of address and port match, so another program's connection is never taken for ours.
 * A client has connected (and knows its local port) before it sends a byte, so by the time a
 * request is read the match is there.
 */
export function isOwnConnection(connection: ConnectionEnds): boolean {
  if (connection.remotePort === undefined) return false;
  for (const socket of open) {
    if (socket.localPort === connection.remotePort && socket.remotePort === connection.localPort
      && same(socket.localAddress, connection.remoteAddress) && same(socket.remoteAddress, connection.localAddress)) return true;
  }
  return false;
}

/** A client on this host: a loopback peer that is not this process talking to itself. */
export function isHostClient(connection: ConnectionEnds): boolean {
  return isLoopbackAddress(connection.remoteAddress) && !isOwnConnection(connection);
}
