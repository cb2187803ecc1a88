// Hosts for the llama.cpp RPC tests: each a network namespace of the test's own, joined to
// this one by a veth pair on a private /30, with svc gateways run inside it through
// `ip netns exec`. A process in the namespace sees only its own address and loopback, so an
// rpc-server there is reached from here exactly as one on another machine of the LAN.
//
//   this namespace   srh<i>  10.78.a.(4b+1)/30
//   the host's       srn<i>  10.78.a.(4b+2)/30
//
// Needs root (CAP_NET_ADMIN) and iproute2, as lan.ts: the tests skip without them, saying
// why, except under CI=true, where they fail (lanSkipReason).
import { spawn, spawnSync } from 'node:child_process';
import { SVC_BIN, svcEnv, type Gateway } from './gateway.js';
import { canMakeNamespaces, NO_NETNS } from './lan.js';

export interface NetnsHost {
  readonly ns: string;
  /** The host's address, as this namespace reaches it. */
  readonly address: string;
  close(): void;
}

const ip = (...args: string[]) => spawnSync('ip', args, { encoding: 'utf8' });

const open = new Set<string>();
process.once('exit', () => {
  for (const ns of open) ip('netns', 'del', ns);
});

function must(result: ReturnType<typeof ip>, what: string): void {
  if (result.status !== 0) throw new Error(`${what}: ${result.stderr}`);
}

/** A new namespace with its veth pair up and addressed; the veth name is claimed atomically. */
export function openNetnsHost(): NetnsHost {
  if (!canMakeNamespaces()) throw new Error(NO_NETNS);
  let index = -1;
  for (let attempt = 0; attempt < 50 && index < 0; attempt++) {
    const candidate = Math.floor(Math.random() * 16384);
    if (ip('link', 'add', `srh${candidate}`, 'type', 'veth', 'peer', 'name', `srn${candidate}`).status === 0) index = candidate;
  }
  if (index < 0) throw new Error('could not create a veth pair (50 tries)');
  const ns = `svcrpc${index}`;
  const base = [10, 78, index >> 6, (index & 63) << 2];
  const v4 = (last: number) => `${base[0]}.${base[1]}.${base[2]}.${base[3]! + last}`;
  try {
    must(ip('netns', 'add', ns), 'ip netns add');
    open.add(ns);
    must(ip('link', 'set', `srn${index}`, 'netns', ns), 'move the veth end');
    must(ip('addr', 'add', `${v4(1)}/30`, 'dev', `srh${index}`), 'this side\'s address');
    must(ip('link', 'set', `srh${index}`, 'up'), 'this side up');
    must(ip('-n', ns, 'addr', 'add', `${v4(2)}/30`, 'dev', `srn${index}`), 'the host\'s address');
    must(ip('-n', ns, 'link', 'set', `srn${index}`, 'up'), 'the host\'s link up');
    must(ip('-n', ns, 'link', 'set', 'lo', 'up'), 'the host\'s loopback up');
  } catch (error) {
    ip('netns', 'del', ns);
    ip('link', 'del', `srh${index}`);
    open.delete(ns);
    throw error;
  }
  return {
    ns,
    address: v4(2),
    close() {
      ip('netns', 'del', ns);
      open.delete(ns);
    },
  };
}

/**
 * `svc serve --port 0` inside the namespace (`ip netns exec` runs the gateway itself as the
 * child, so signals reach it). Its API listens on the namespace's loopback: the tests read
 * what it did from its state folder and from the network, as another host would.
 */
export async function startGatewayIn(host: NetnsHost, home: string, env: Record<string, string> = {}): Promise<Gateway> {
  const child = spawn('ip', ['netns', 'exec', host.ns, process.execPath, SVC_BIN, 'serve', '--port', '0'], { env: svcEnv(home, env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const port = await new Promise<number>((done, fail) => {
    const check = () => {
      const match = /listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (match) done(Number(match[1]));
    };
    child.stdout.on('data', check);
    void exited.then((code) => fail(new Error(`svc serve in ${host.ns} exited with ${code} before listening:\n${output}`)));
    setTimeout(() => fail(new Error(`svc serve in ${host.ns} did not start within 20 s:\n${output}`)), 20_000).unref();
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    process: child,
    output: () => output,
    async stop() {
      if (running()) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (running()) child.kill('SIGKILL');
      await exited;
    },
  };
}
