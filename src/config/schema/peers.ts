// peers.toml: other svc gateways this one balances requests over (docs/scaling.md), and how
// often every replica target (peers, vLLM and llama-server upstreams) is health-checked. The
// token a peer wants (its auth mode) never lives here: an entry names the environment
// variable or the file that holds it.
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { envVarName, httpUrl, slotName } from './common.js';

export const PeerSchema = z.strictObject({
  url: httpUrl().meta({ description: 'Base URL of the peer gateway, without /v1 (e.g. http://10.0.0.2:8080).' }),
  token_env: envVarName().nullable().default(null).meta({ description: 'Environment variable holding the peer\'s API token (sent as a bearer token).' }),
  token_file: z.string().refine(isAbsolute, { message: 'expected an absolute path' }).nullable().default(null)
    .meta({ description: 'File holding the peer\'s API token (first line), read when the peer is polled; token_env wins when both are set.' }),
  weight: z.number().gt(0).max(1000).default(1).meta({ description: 'Share of the requests among replicas with the same load: in-flight requests are divided by it.' }),
  enabled: z.boolean().default(true).meta({ description: 'Poll this peer and route requests to it.' }),
});

export const PeerHealthSchema = z.strictObject({
  interval_s: z.number().min(0.1).max(3600).default(10).meta({ description: 'Seconds between health checks (models and load) of every peer and vLLM / llama-server upstream.' }),
  timeout_s: z.number().gt(0).max(60).default(3).meta({ description: 'Seconds one health check may take before it counts as a failure.' }),
  breaker_failures: z.int().min(1).max(100).default(3).meta({ description: 'Consecutive failures (requests or health checks) that open a replica\'s circuit breaker.' }),
  breaker_backoff_s: z.number().gt(0).max(3600).default(2).meta({ description: 'Seconds an open breaker waits before its first half-open probe; doubled after each failed probe.' }),
  breaker_backoff_max_s: z.number().gt(0).max(86400).default(60).meta({ description: 'Longest wait between half-open probes.' }),
});

export const PeersFileSchema = z.strictObject({
  peers: z.record(slotName(), PeerSchema).default({}),
  health: PeerHealthSchema.prefault({}),
});

export type PeerConfig = z.output<typeof PeerSchema>;
export type PeerHealth = z.output<typeof PeerHealthSchema>;
export type PeersFile = z.output<typeof PeersFileSchema>;
