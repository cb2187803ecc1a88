// The health of an rpc-server: is a socket listening on its port? It is read from the
// kernel's table (/proc/net/tcp of the gateway's network namespace, which the engine shares),
// not probed with a connection: rpc-server serves one client at a time with a listen backlog
// of 1, so while a llama-server holds it (for that engine's whole life) a probe's connection
// would queue, the next ones would wait out their timeout, and the health watch would kill
// a worker that is busy, not hung. rpc-server binds IPv4 only, so tcp6 is not read.
import { readFile } from 'node:fs/promises';
import type { HealthState } from '../types.js';

const LISTEN = '0A';

/** Ports in LISTEN state in a /proc/net/tcp text (hex "address:port" in column 2, state in column 4). */
export function listeningPorts(table: string): Set<number> {
  const ports = new Set<number>();
  for (const line of table.split('\n').slice(1)) {
    const columns = line.trim().split(/\s+/);
    if (columns.length < 4 || columns[3] !== LISTEN) continue;
    const port = parseInt(columns[1]!.split(':')[1] ?? '', 16);
    if (Number.isInteger(port)) ports.add(port);
  }
  return ports;
}

/** 'ready' when something listens on the port of `baseUrl` (tcp://host:port), else 'down'; never throws. */
export async function listeningHealth(baseUrl: string, table = '/proc/net/tcp'): Promise<HealthState> {
  const port = Number(/:(\d+)\/?$/.exec(baseUrl)?.[1]);
  if (!Number.isInteger(port)) return 'down';
  const text = await readFile(table, 'utf8').catch(() => '');
  return listeningPorts(text).has(port) ? 'ready' : 'down';
}
