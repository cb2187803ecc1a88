// A client on another host, for the tests of what a LAN client may do: a network namespace
// of the test's own, joined to this one by a veth pair, with a client process inside it
// (test/fixtures/lan-client.mjs). A gateway that listens on 0.0.0.0 (or ::) sees that
// client's address as the peer, exactly as it would see a laptop on the same network.
//
//   this namespace   svh<i>  10.77.a.(4b+1)/30   fd77:0:<i>::1/64
//   the client's     svn<i>  10.77.a.(4b+2)/30   fd77:0:<i>::2/64 and ::3, ::4 (one /64)
//
// Needs root (CAP_NET_ADMIN) and iproute2; CI runs as root. Without them a test skips,
// saying why, except under CI=true, where it fails.
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { REPO_ROOT } from './gateway.js';

export interface LanAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // Tests read arbitrary response shapes; `any` keeps their assertions short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export interface LanRequest {
  method?: string;
  /** Sent exactly as given (a `host` here replaces the one derived from the URL). */
  headers?: Record<string, string>;
  /** An object is sent as JSON (with content-type application/json unless headers name one, as a POST without a body is too). */
  body?: unknown;
  raw?: string;
  /** One of the client's own addresses to send from (an IPv6 one of `clientAddresses6`). */
  localAddress?: string;
}

export interface Lan {
  /** The address of this host as the client sees it (the gateway's LAN address). */
  readonly hostAddress: string;
  readonly hostAddress6: string;
  /** The client's IPv4 address, the peer a gateway sees. */
  readonly clientAddress: string;
  /** Three IPv6 addresses of the client, all in one /64. */
  readonly clientAddresses6: readonly string[];
  /** A URL for the gateway on `port`, as the client reaches it. */
  url(port: number, family?: 4 | 6): string;
  request(url: string, init?: LanRequest): Promise<LanAnswer>;
  close(): void;
}

export const NO_NETNS = 'network namespaces need root and iproute2 (ip netns add); run the suite as root, as CI does';

const ip = (...args: string[]) => spawnSync('ip', args, { encoding: 'utf8' });

/** Whether this process can make network namespaces. */
export function canMakeNamespaces(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0 && spawnSync('ip', ['-V']).status === 0;
}

const open = new Set<string>();
process.once('exit', () => {
  for (const ns of open) ip('netns', 'del', ns);
});

/** A free index: the veth name is taken atomically by `ip link add`, and the index fixes the subnets. */
function claimLink(): number {
  for (let attempt = 0; attempt < 50; attempt++) {
    const index = Math.floor(Math.random() * 16384);
    if (ip('link', 'add', `svh${index}`, 'type', 'veth', 'peer', 'name', `svn${index}`).status === 0) return index;
  }
  throw new Error('could not create a veth pair (50 tries)');
}

function must(result: ReturnType<typeof ip>, what: string): void {
  if (result.status !== 0) throw new Error(`${what}: ${result.stderr}`);
}

export async function openLan(): Promise<Lan> {
  if (!canMakeNamespaces()) throw new Error(NO_NETNS);
  const index = claimLink();
  const ns = `svcns${index}`;
  const host = `svh${index}`;
  const peer = `svn${index}`;
  const base = `10.77.${index >> 6}.${(index & 63) << 2}`.split('.').map(Number);
  const v4 = (last: number) => `${base[0]}.${base[1]}.${base[2]}.${base[3]! + last}`;
  const v6 = (last: number) => `fd77:0:${index.toString(16)}::${last}`;
  try {
    must(ip('netns', 'add', ns), 'ip netns add');
    open.add(ns);
    must(ip('link', 'set', peer, 'netns', ns), 'move the veth end');
    must(ip('addr', 'add', `${v4(1)}/30`, 'dev', host), 'host address');
    must(ip('addr', 'add', `${v6(1)}/64`, 'dev', host, 'nodad'), 'host IPv6 address');
    must(ip('link', 'set', host, 'up'), 'host link up');
    must(ip('-n', ns, 'addr', 'add', `${v4(2)}/30`, 'dev', peer), 'client address');
    for (const last of [2, 3, 4]) must(ip('-n', ns, 'addr', 'add', `${v6(last)}/64`, 'dev', peer, 'nodad'), 'client IPv6 address');
    must(ip('-n', ns, 'link', 'set', peer, 'up'), 'client link up');
    must(ip('-n', ns, 'link', 'set', 'lo', 'up'), 'client loopback up');
  } catch (error) {
    ip('netns', 'del', ns);
    ip('link', 'del', host);
    open.delete(ns);
    throw error;
  }
  const child = spawn('ip', ['netns', 'exec', ns, process.execPath, join(REPO_ROOT, 'test/fixtures/lan-client.mjs')], { stdio: ['pipe', 'pipe', 'pipe'] });
  const client = await started(child);
  let next = 0;
  const pending = new Map<number, (answer: Record<string, unknown>) => void>();
  client.on('line', (line) => {
    const answer = JSON.parse(line) as { id: number };
    pending.get(answer.id)?.(answer);
    pending.delete(answer.id);
  });
  const close = () => {
    child.kill();
    ip('netns', 'del', ns);
    open.delete(ns);
  };
  return {
    hostAddress: v4(1),
    hostAddress6: v6(1),
    clientAddress: v4(2),
    clientAddresses6: [v6(2), v6(3), v6(4)],
    url: (port, family = 4) => (family === 4 ? `http://${v4(1)}:${port}` : `http://[${v6(1)}]:${port}`),
    request(url, init = {}) {
      const id = next++;
      const headers: Record<string, string> = { ...init.headers };
      let body = init.raw;
      const typed = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
      if (init.body !== undefined) body = JSON.stringify(init.body);
      // A POST without a body says JSON, as most API clients do (a bare one is served too: tool-posts.test.ts sends raw).
      if (!typed && (init.body !== undefined || (init.method === 'POST' && body === undefined))) headers['content-type'] = 'application/json';
      return new Promise<LanAnswer>((done, fail) => {
        pending.set(id, (answer) => {
          if (typeof answer.error === 'string') return fail(new Error(`LAN request ${init.method ?? 'GET'} ${url}: ${answer.error}`));
          const text = answer.body as string;
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          done({ status: answer.status as number, headers: answer.headers as LanAnswer['headers'], text, json });
        });
        child.stdin.write(`${JSON.stringify({ id, url, method: init.method ?? 'GET', headers, body, localAddress: init.localAddress })}\n`);
      });
    },
    close,
  };
}

/** The client's line reader once it said it is ready. */
function started(child: ChildProcessWithoutNullStreams): Promise<ReturnType<typeof createInterface>> {
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  return new Promise((done, fail) => {
    lines.once('line', (line) => (line.includes('"ready"') ? done(lines) : fail(new Error(`LAN client: ${line}${stderr}`))));
    child.once('exit', (code) => fail(new Error(`LAN client exited with ${code}: ${stderr}`)));
  });
}

/** For describe.skipIf: the reason a LAN test cannot run here; under CI=true it throws instead. */
export function lanSkipReason(): string | undefined {
  if (canMakeNamespaces()) return undefined;
  if (process.env.CI === 'true') throw new Error(NO_NETNS);
  return NO_NETNS;
}
