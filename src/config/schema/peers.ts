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

/** `slot:<name>`, `peer:<name>` or `upstream:<name>`: the X-Svc-Target value of a replica. */
export const REPLICA_TARGET_PATTERN = /^(slot|peer|upstream):([a-z0-9][a-z0-9_-]{0,31})$/;

export const ReplicaMemberSchema = z.strictObject({
  target: z.string().regex(REPLICA_TARGET_PATTERN, { message: 'expected "slot:<name>", "peer:<name>" or "upstream:<name>" (a name of a slot file, a [peers] entry or an [upstreams] entry)' })
    .meta({ description: 'The member: a local slot, a peer gateway or an upstream.' }),
  model: z.string().min(1).max(256).optional()
    .meta({ description: 'The model id sent to this member; default the group id (for a slot: the slot\'s own model id).' }),
});

/** An explicit replica group: a public model id served by members that may call it by other names. */
export const ModelGroupSchema = z.strictObject({
  replicas: z.array(ReplicaMemberSchema).min(1).max(64).meta({ description: 'The members of the group, each chosen like a replica of an implicit set.' }),
});

export const PeersFileSchema = z.strictObject({
  peers: z.record(slotName(), PeerSchema).default({}),
  health: PeerHealthSchema.prefault({}),
  // Model ids are free-form (org/name, name:tag); what clients send in `model`.
  models: z.record(z.string().min(1).max(256).regex(/^[^\s]+$/, { message: 'expected a model id without spaces' }), ModelGroupSchema).default({}),
});

export type PeersFile = z.output<typeof PeersFileSchema>;
