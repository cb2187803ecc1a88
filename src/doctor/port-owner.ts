// Who listens on a TCP port, from /proc (Linux): the socket's inode from /proc/net/tcp and
// tcp6, then the process holding that inode among /proc/<pid>/fd. Without root only this
// user's processes can be searched: an owner not found is reported as unknown, not as free.
import { readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';

const LISTEN = '0A';

/** Inodes of the sockets listening on `port`, from /proc/net/tcp and tcp6 text. */
export function listeningInodes(tables: readonly string[], port: number): string[] {
  const inodes: string[] = [];
  for (const table of tables) {
    for (const line of table.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== LISTEN) continue;
      const local = cols[1]!;
      if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) inodes.push(cols[9]!);
    }
  }
  return inodes;
}

export interface PortOwner {
  listening: boolean;
  /** The process holding the socket; null when it could not be found (another user's, or no /proc). */
  pid: number | null;
  command: string | null;
}

export async function portOwner(port: number, procRoot = '/proc'): Promise<PortOwner> {
  const tables = await Promise.all(['net/tcp', 'net/tcp6'].map((f) => readFile(join(procRoot, f), 'utf8').catch(() => '')));
  const inodes = new Set(listeningInodes(tables, port));
  if (inodes.size === 0) return { listening: false, pid: null, command: null };
  const wanted = new Set([...inodes].map((i) => `socket:[${i}]`));
  const pids = (await readdir(procRoot).catch(() => [] as string[])).filter((n) => /^\d+$/.test(n));
  for (const pid of pids) {
    const fds = await readdir(join(procRoot, pid, 'fd')).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await readlink(join(procRoot, pid, 'fd', fd)).catch(() => '');
      if (wanted.has(target)) {
        const cmdline = await readFile(join(procRoot, pid, 'cmdline'), 'utf8').catch(() => '');
        return { listening: true, pid: Number(pid), command: cmdline.split('\0').filter(Boolean).join(' ') || null };
      }
    }
  }
  return { listening: true, pid: null, command: null };
}

/** The parent pid chain of a process (itself first), up to init; [] when /proc has no such process. */
export async function ancestry(pid: number, procRoot = '/proc'): Promise<number[]> {
  const chain: number[] = [];
  let current = pid;
  while (current > 1 && chain.length < 64) {
    const stat = await readFile(join(procRoot, String(current), 'stat'), 'utf8').catch(() => null);
    if (stat === null) break;
    chain.push(current);
    // Field 4, after the command in parentheses (which may itself hold spaces and parentheses).
    current = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  }
  return chain;
}
