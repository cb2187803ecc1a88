// The hop header: a request one svc gateway forwards to a peer carries it, and a gateway never
// forwards a request that arrived with it to a peer of its own, so two gateways that list each
// other cannot loop.
export const PEER_HOP_HEADER = 'x-svc-peer-hop';

export function cameFromPeer(headers: Record<string, string | string[] | undefined>): boolean {
  return headers[PEER_HOP_HEADER] !== undefined;
}
