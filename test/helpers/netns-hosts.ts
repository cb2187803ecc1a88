// N hosts on one private network, for the tests of gateways that talk to each other (peers,
// docs/scaling.md): each host is a network namespace of the test's own with its own ports and
// address, joined to a bridge that lives in a hub namespace (so no netfilter rule of this
// machine's sees the traffic), and this namespace joins the bridge too, so the test reaches
// every host. Nothing outside the sandbox is ever addressed.
//
//   this namespace   svr<i>     10.79.<i>.1/24
//   host k           svz<i>x<k> 10.79.<i>.(10+k)/24, loopback up (engines listen there)
//
// Needs root and iproute2, as test/helpers/lan.ts: without them a test skips, saying why,
// except under CI=true, where it fails (lanSkipReason).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { SVC_BIN, svcEnv } from './gateway.js';

export { lanSkipReason as netnsSkipReason } from './lan.js';

const ip = (...args: string[]) => spawnSync('ip', args, { encoding: 'utf8' });

function must(result: ReturnType<typeof ip>, what: string): void {
  if (result.status !== 0) throw new Error(`${what}: ${result.stderr}`);
}

export interface NetnsHost {
  readonly ns: string;
  readonly address: string;
  /** Spawn a command inside the host (`ip netns exec`; the child's pid is the command's own). */
  spawn(command: string, args: string[], env?: NodeJS.ProcessEnv): ChildProcess;
}

export interface NetnsHosts {
  readonly hosts: readonly NetnsHost[];
  /** This namespace's address on the network. */
  readonly testAddress: string;
  close(): void;
}

const open = new Set<string>();
process.once('exit', () => {
  for (const ns of open) ip('netns', 'del', ns);
});

export function openNetnsHosts(count: number): NetnsHosts {
  let index = -1;
  for (let attempt = 0; attempt < 50 && index < 0; attempt++) {
    const i = Math.floor(Math.random() * 256);
    if (ip('netns', 'add', `svsw${i}`).status === 0) index = i;
  }
  if (index < 0) throw new Error('could not create a hub namespace (50 tries)');
  const hub = `svsw${index}`;
  open.add(hub);
  const names: string[] = [hub];
  const close = () => {
    for (const ns of names) {
      ip('netns', 'del', ns);
      open.delete(ns);
    }
  };
  const net = (last: number) => `10.79.${index}.${last}`;
  try {
    must(ip('-n', hub, 'link', 'add', 'br0', 'type', 'bridge'), 'bridge');
    must(ip('-n', hub, 'link', 'set', 'br0', 'up'), 'bridge up');
    must(ip('link', 'add', `svr${index}`, 'type', 'veth', 'peer', 'name', `svq${index}`), 'test veth');
    must(ip('link', 'set', `svq${index}`, 'netns', hub), 'test veth to the hub');
    must(ip('-n', hub, 'link', 'set', `svq${index}`, 'master', 'br0', 'up'), 'test veth on the bridge');
    must(ip('addr', 'add', `${net(1)}/24`, 'dev', `svr${index}`), 'test address');
    must(ip('link', 'set', `svr${index}`, 'up'), 'test veth up');
    const hosts: NetnsHost[] = [];
    for (let k = 0; k < count; k++) {
      const ns = `svh${index}x${k}`;
      must(ip('netns', 'add', ns), 'ip netns add');
      names.push(ns);
      open.add(ns);
      const [outer, inner] = [`sva${index}x${k}`, `svz${index}x${k}`];
      must(ip('link', 'add', outer, 'type', 'veth', 'peer', 'name', inner), 'host veth');
      must(ip('link', 'set', outer, 'netns', hub), 'host veth to the hub');
      must(ip('-n', hub, 'link', 'set', outer, 'master', 'br0', 'up'), 'host veth on the bridge');
      must(ip('link', 'set', inner, 'netns', ns), 'host veth to the host');
      must(ip('-n', ns, 'addr', 'add', `${net(10 + k)}/24`, 'dev', inner), 'host address');
      must(ip('-n', ns, 'link', 'set', inner, 'up'), 'host veth up');
      must(ip('-n', ns, 'link', 'set', 'lo', 'up'), 'host loopback up');
      hosts.push({
        ns,
        address: net(10 + k),
        spawn: (command, args, env) => spawn('ip', ['netns', 'exec', ns, command, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] }),
      });
    }
    return { hosts, testAddress: net(1), close };
  } catch (error) {
    close();
    throw error;
  }
}

export interface HostGateway {
  url: string;
  process: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

/** `svc serve` inside a host on 0.0.0.0:<port>, the way a second machine runs it; resolves once it listens. */
export async function startGatewayOn(host: NetnsHost, home: string, port: number, env: Record<string, string> = {}): Promise<HostGateway> {
  const child = host.spawn(process.execPath, [SVC_BIN, 'serve', '--port', String(port), '--host', '0.0.0.0'], svcEnv(home, env));
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  await new Promise<void>((done, fail) => {
    const check = () => /listening on http/.test(output) && done();
    child.stdout!.on('data', check);
    void exited.then(() => fail(new Error(`svc serve in ${host.ns} exited before listening:\n${output}`)));
    setTimeout(() => fail(new Error(`svc serve in ${host.ns} did not start within 20 s:\n${output}`)), 20_000).unref();
  });
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return { url: `http://${host.address}:${port}`, process: child, output: () => output, stop: () => signal('SIGTERM'), kill: () => signal('SIGKILL') };
}
