// providers.toml and upstreams.toml: remote OpenAI-compatible endpoints. The spec does not
// show their fields; the design is in docs/configuration.md. Secrets never live in these
// files: each endpoint names the environment variable that holds its API key.
import { z } from 'zod';
import { envVarName, httpUrl, slotName } from './common.js';

const endpointFields = {
  base_url: httpUrl().meta({ description: 'Base URL of the OpenAI-compatible API, including /v1.' }),
  api_key_env: envVarName().nullable().default(null).meta({ description: 'Environment variable holding the API key (sent as a bearer token).' }),
  enabled: z.boolean().default(true).meta({ description: 'Route requests to this endpoint.' }),
  models: z.array(z.string().min(1)).nullable().default(null).meta({ description: 'Model ids served; null = fetch GET /models from the endpoint.' }),
  timeout_s: z.number().gt(0).max(3600).default(600).meta({ description: 'Seconds a request may take before 504 dispatch.upstream_timeout.' }),
  responses: z.boolean().default(false).meta({ description: 'The endpoint has the Responses API itself: /v1/responses is passed through byte for byte instead of translated to chat completions.' }),
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, { message: 'expected an HTTP header name' }), z.string()).default({})
    .meta({ description: 'Extra request headers (no secrets: use api_key_env).' }),
};

export const ProviderSchema = z.strictObject({
  ...endpointFields,
  kind: z.enum(['openai', 'openrouter', 'groq', 'together', 'mistral', 'custom']).default('custom')
    .meta({ description: 'Which service this is; informational and used for defaults in the dashboard.' }),
  model_prefix: z.string().nullable().default(null).meta({ description: 'When set, only `<prefix>/<model>` ids route here and the prefix is removed before forwarding.' }),
});

export const UpstreamSchema = z.strictObject({
  ...endpointFields,
  slot: slotName().nullable().default(null).meta({ description: 'The local slot this upstream fronts; null for a remote upstream.' }),
  tool_calling: z.boolean().default(false).meta({ description: 'The models behind this upstream can call tools: a chat request with omni: true runs the tool loop on them.' }),
  kind: z.enum(['openai', 'vllm', 'llama-server']).default('openai')
    .meta({ description: 'What serves it: vllm and llama-server upstreams are health-checked (/health) and their load read (/metrics, /slots), and join replica sets (docs/scaling.md).' }),
});

export const ProvidersFileSchema = z.strictObject({ providers: z.record(slotName(), ProviderSchema).default({}) });
export const UpstreamsFileSchema = z.strictObject({ upstreams: z.record(slotName(), UpstreamSchema).default({}) });

export type ProvidersFile = z.output<typeof ProvidersFileSchema>;
export type UpstreamsFile = z.output<typeof UpstreamsFileSchema>;
