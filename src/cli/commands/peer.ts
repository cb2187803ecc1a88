// svc peer list|refresh: thin over /api/peers (docs/cli.md, docs/scaling.md): the peers and
// health-checked upstreams this gateway balances over, with their state, breaker and load.
import { type Command, Option } from 'commander';
import type { PeersPayload, PeerView } from '../../protocol/peers.js';
import type { ApiClient } from '../client.js';
import { print, printJson, table } from '../output.js';

function printPeers(peers: readonly PeerView[]): void {
  if (peers.length === 0) return print('no peers (add [peers.<name>] to peers.toml, or a vllm / llama-server upstream)');
  const rows = peers.map((p) => [
    p.target, p.url, p.state, p.breaker.state, String(p.weight),
    p.load ? `${p.load.in_flight}` : '-',
    p.models === null ? '-' : p.models.filter((m) => !m.startsWith('svc/')).join(',') || '-',
    p.last_seen ?? '-',
    p.error ?? '',
  ]);
  for (const line of table(['TARGET', 'URL', 'STATE', 'BREAKER', 'WEIGHT', 'IN_FLIGHT', 'MODELS', 'LAST_SEEN', 'ERROR'], rows)) print(line);
}

export function registerPeerCommands(program: Command, client: () => ApiClient): void {
  const peer = program.command('peer').description('peers and health-checked upstreams: list, refresh (docs/scaling.md)');
  const json = () => new Option('--json', 'print JSON');

  peer.command('list').description('each peer: url, state, breaker, models, load, last seen, last error').addOption(json()).action(async (o: { json?: boolean }) => {
    const answer = await client().request<PeersPayload>('GET', '/api/peers');
    if (o.json) return printJson(answer);
    printPeers(answer.peers);
  });

  peer.command('refresh').description('health-check every peer now and list them').addOption(json()).action(async (o: { json?: boolean }) => {
    const answer = await client().request<PeersPayload>('POST', '/api/peers/refresh');
    if (o.json) return printJson(answer);
    printPeers(answer.peers);
  });
}
