#!/usr/bin/env node
// The bench's upstream: a fast OpenAI-compatible server with canned answers, run as its own
// process. It takes llama-server's flags (--port, --host, --alias, -m, ...; unknown ones are
// ignored) and answers /health like it (503 while "loading", then 200), so the gateway can
// run it as a slot engine as well as reach it as a remote upstream.
//   --port N                 where to listen (required)
//   --host H                 default 127.0.0.1
//   --alias NAME             the model id it lists (default bench)
//   --load-ms N              answer /health 503 for N ms after start (a model load; default 0)
//   --chunks N               content chunks per stream when the request has no max_tokens (default 16)
//   --interval-ms N          pause between stream chunks (default 5); a request's bench_interval_ms wins
// Streams write each SSE event with its own write(): the role event at once, then one token
// per event `interval` ms apart (the first one precisely), as llama-server does, each stamped
// with when it was written (sent_at, epoch ms). Answers carry x-engine-started-at / x-engine-ready-at (epoch ms) so
// the bench can take the engine's own start-up time out of a cold slot load.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';

const args = process.argv.slice(2);
const flag = (names, fallback) => {
  const i = args.findIndex((a) => names.includes(a));
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const port = Number(flag(['--port']));
const host = flag(['--host'], '127.0.0.1');
const alias = flag(['--alias', '-a'], 'bench');
const loadMs = Number(flag(['--load-ms'], '0'));
const defaultChunks = Number(flag(['--chunks'], '16'));
const defaultIntervalMs = Number(flag(['--interval-ms'], '5'));
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('bench upstream: --port N is required\n');
  process.exit(2);
}

// When the process started, and when it turned ready: listening, and --load-ms after start.
// Marked by a timer, not by the first /health that finds it ready, so the gateway's polling
// delay is never counted as the engine's own time.
// A slot's engine is started through a bash wrapper (bench/lib/processes.mjs) that stamps when
// it began to run (BENCH_EXEC_AT, from $EPOCHREALTIME): the moment a real engine, exec'd
// directly by the gateway, would start its own work. Node's own start-up after that is this
// engine's time, as a real engine's loading of its binary is its own.
const startedAt = performance.timeOrigin;
const execAt = process.env.BENCH_EXEC_AT ? Number(process.env.BENCH_EXEC_AT) * 1000 : startedAt;
let readyAt = null;
const ready = () => readyAt !== null;
const timing = () => ({ 'x-engine-started-at': startedAt.toFixed(3), 'x-engine-exec-at': execAt.toFixed(3), 'x-engine-ready-at': (readyAt ?? 0).toFixed(3) });

const usage = { prompt_tokens: 12, completion_tokens: 24, total_tokens: 36 };
const chatAnswer = (model) => JSON.stringify({
  id: 'chatcmpl-bench', object: 'chat.completion', created: 1700000000, model,
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'The quick brown fox jumps over the lazy dog. '.repeat(3).trim() } }],
  usage,
});
const completionAnswer = (model) => JSON.stringify({
  id: 'cmpl-bench', object: 'text_completion', created: 1700000000, model,
  choices: [{ index: 0, finish_reason: 'stop', text: 'The quick brown fox jumps over the lazy dog.' }], usage,
});
const EMBEDDING = Array.from({ length: 384 }, (_, i) => Number(Math.sin(i).toFixed(6)));
const embeddingAnswer = (model, count) => JSON.stringify({
  object: 'list', model, usage: { prompt_tokens: 8, total_tokens: 8 },
  data: Array.from({ length: count }, (_, index) => ({ object: 'embedding', index, embedding: EMBEDDING })),
});

function sendJson(res, status, text) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...timing() });
  res.end(text);
}

/** One SSE event per token, each its own write, `interval` ms apart; the client leaving stops it. */
function stream(res, model, chunks, interval, chat) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...timing() });
  const event = (delta, finish) => {
    const choice = chat ? { index: 0, delta, finish_reason: finish } : { index: 0, text: delta.content ?? '', finish_reason: finish };
    const sentAt = (startedAt + performance.now()).toFixed(3);
    return `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: chat ? 'chat.completion.chunk' : 'text_completion', created: 1700000000, model, choices: [choice], sent_at: sentAt })}\n\n`;
  };
  if (chat) res.write(event({ role: 'assistant', content: null }, null));
  let sent = 0;
  const next = () => {
    if (res.destroyed) return;
    if (sent < chunks) {
      res.write(event({ content: `tok${sent} ` }, null));
      sent++;
      return void setTimeout(next, interval);
    }
    res.write(event({}, 'stop'));
    res.end('data: [DONE]\n\n');
  };
  // The first token comes `interval` ms after the request, to the tenth of a ms: a timer to
  // just short of it, then turns of the event loop (timers alone are ~1 ms coarse, which
  // would blur a difference of tenths). Meanwhile the head and the role event are relayed,
  // as with a real engine working on the prompt. Each later token waits `interval` ms.
  const firstAt = performance.now() + interval;
  const untilFirst = () => (performance.now() >= firstAt ? next() : setImmediate(untilFirst));
  setTimeout(untilFirst, Math.max(0, interval - 1.5));
}

function answer(req, res, body) {
  const model = typeof body.model === 'string' ? body.model : alias;
  const chat = req.url === '/v1/chat/completions';
  if (chat || req.url === '/v1/completions') {
    if (body.stream === true) {
      const chunks = Number.isInteger(body.max_tokens) ? body.max_tokens : defaultChunks;
      const interval = Number.isFinite(body.bench_interval_ms) ? body.bench_interval_ms : defaultIntervalMs;
      return stream(res, model, chunks, interval, chat);
    }
    return sendJson(res, 200, chat ? chatAnswer(model) : completionAnswer(model));
  }
  if (req.url === '/v1/embeddings') return sendJson(res, 200, embeddingAnswer(model, Array.isArray(body.input) ? body.input.length : 1));
  sendJson(res, 404, JSON.stringify({ error: { code: 404, message: 'File Not Found', type: 'not_found_error' } }));
}

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    if (req.url === '/health') {
      const ok = ready();
      return sendJson(res, ok ? 200 : 503, JSON.stringify(ok ? { status: 'ok' } : { error: { code: 503, message: 'Loading model', type: 'unavailable_error' } }));
    }
    if (req.url === '/v1/models') return sendJson(res, 200, JSON.stringify({ object: 'list', data: [{ id: alias, object: 'model', owned_by: 'bench' }] }));
    return sendJson(res, 404, JSON.stringify({ error: { code: 404, message: 'File Not Found', type: 'not_found_error' } }));
  }
  const parts = [];
  req.on('data', (part) => parts.push(part));
  req.on('end', () => {
    if (!ready()) return sendJson(res, 503, JSON.stringify({ error: { code: 503, message: 'Loading model', type: 'unavailable_error' } }));
    let body;
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch {
      return sendJson(res, 400, JSON.stringify({ error: { code: 400, message: 'invalid JSON', type: 'invalid_request_error' } }));
    }
    answer(req, res, body ?? {});
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, host, () => {
  process.stderr.write(`bench upstream: pid ${process.pid} listening on ${host}:${port}\n`);
  // Ready, and saying so as llama-server does (its log's "model loaded" line), which is what
  // a gateway watching the log can notice.
  setTimeout(() => {
    readyAt = startedAt + performance.now();
    process.stderr.write('srv  llama_server: model loaded\n');
  }, Math.max(0, loadMs - performance.now()));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
