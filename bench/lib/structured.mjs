// What a JSON schema costs on the built-in engine: completion tokens per second of chat
// answers on the tiny model, plain (LlamaChat) against response_format json_schema (the
// engine's own token loop under a grammar), through the built gateway, alternating, several
// runs each. Used by bench/run.mjs (the `structured` figures) and bench/structured.mjs.
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { median } from './load.mjs';
import { startGateway } from './processes.mjs';
import { tinyModelHome } from './tiny-home.mjs';

const call = async (url, path, body) => {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  const json = await res.json();
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};

// Long enough that a document is a few hundred tokens: its length is the schema's, not the model's choice.
const schema = {
  type: 'object',
  properties: { notes: { type: 'array', items: { type: 'string', minLength: 30, maxLength: 40 }, minItems: 24, maxItems: 24 }, done: { type: 'boolean' } },
  required: ['notes', 'done'], additionalProperties: false,
};
const messages = [{ role: 'user', content: 'Write notes about the moon.' }];

export async function measureStructured({ runs = 7, maxTokens = 256 } = {}) {
  const requests = {
    plain: { model: 'tiny', messages, max_tokens: maxTokens, ignore_eos: true, seed: 1 },
    json_schema: { model: 'tiny', messages, max_tokens: 4 * maxTokens, seed: 1, response_format: { type: 'json_schema', json_schema: { name: 'notes', schema } } },
  };
  const root = await tinyModelHome('svc-bench-structured-');
  const gw = await startGateway({ home: root, wrapper: '/bin/false' });
  const rates = { plain: [], json_schema: [] };
  const tokens = { plain: [], json_schema: [] };
  try {
    await call(gw.url, '/api/slots', { name: 'chat', model: 'tiny', device: 'cpu', provider: 'builtin', ctx_size: 4096 });
    await call(gw.url, '/api/slots/chat/load');
    // One of each first, unmeasured: the grammar's compile and cache, the first allocations.
    for (const body of Object.values(requests)) await call(gw.url, '/v1/chat/completions', body);
    for (let run = 0; run < runs; run++) {
      for (const [kind, body] of Object.entries(requests)) {
        const t0 = performance.now();
        const answer = await call(gw.url, '/v1/chat/completions', body);
        const seconds = (performance.now() - t0) / 1000;
        if (kind === 'json_schema') JSON.parse(answer.choices[0].message.content);
        rates[kind].push(answer.usage.completion_tokens / seconds);
        tokens[kind].push(answer.usage.completion_tokens);
      }
    }
  } finally {
    await gw.stop();
    rmSync(root, { recursive: true, force: true });
  }
  const r = (x) => Math.round(x * 10) / 10;
  const plain = median(rates.plain);
  const withSchema = median(rates.json_schema);
  return {
    bench: 'structured', runs, plain_tokens_per_s: r(plain), json_schema_tokens_per_s: r(withSchema), ratio: Math.round((withSchema / plain) * 1000) / 1000,
    completion_tokens: { plain: median(tokens.plain), json_schema: median(tokens.json_schema) },
    all: { plain: rates.plain.map(r), json_schema: rates.json_schema.map(r) },
  };
}
