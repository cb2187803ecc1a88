// The gateway as a local client reaches it: its listening address, a wildcard one (0.0.0.0,
// ::) reached on loopback. What the agents, hermes and the settings report call "this gateway".
import { localUrlOf } from '../lib/addresses.js';

export function selfUrl(listening: { readonly host: string; readonly port: number }): string {
  return localUrlOf(listening.host, listening.port);
}

/** The keys of svc.toml whose empty value means this gateway: shown as the address it listens on. */
export function withSelfUrl<T extends { memory: { embedding: { rerank_gateway_url: string } } }>(settings: T, listening: { readonly host: string; readonly port: number }): T {
  if (settings.memory.embedding.rerank_gateway_url !== '') return settings;
  return { ...settings, memory: { ...settings.memory, embedding: { ...settings.memory.embedding, rerank_gateway_url: selfUrl(listening) } } };
}
