// GET /api/metrics: Prometheus text (exposition format 0.0.4) from a registry of this app's
// own (never prom-client's global one). Counters and gauges are filled at scrape time from
// ctx.metrics and the supervisor; the two histograms are observed as requests end.
import type { FastifyInstance } from 'fastify';
import type * as PromClientModule from 'prom-client';
import type { Counter, Gauge, Registry } from 'prom-client';
import { SLOT_STATES } from '../../slots/state-machine.js';
import { SlotHistogram } from './metrics-histogram.js';
import type { ServerContext } from '../context.js';

/** Seconds; LLM requests run from well under a second to minutes. */
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const TTFT_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The registry of everything read at scrape time. */
type PromClient = typeof PromClientModule;

export function metricsRegistry(prom: PromClient, ctx: ServerContext): { registry: Registry } {
  const { Counter, Gauge, Registry, collectDefaultMetrics } = prom;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const slotNames = () => {
    const names = new Set(ctx.supervisor.list({ memory: false }).map((v) => v.name));
    for (const name of ctx.metrics.slots()) names.add(name);
    return [...names];
  };

  const requests = new Counter({
    name: 'svc_slot_requests_total',
    help: 'Requests forwarded to a slot, by outcome (ok, error; cancelled: the client left first).',
    labelNames: ['slot', 'outcome'] as const,
    registers: [registry],
    collect() {
      requests.reset();
      for (const slot of slotNames()) {
        const { requests: counts } = ctx.metrics.snapshot(slot);
        for (const outcome of ['ok', 'error', 'cancelled'] as const) {
          if (outcome !== 'cancelled' || counts.cancelled > 0) requests.inc({ slot, outcome }, counts[outcome]);
        }
      }
    },
  });
  const errors = new Counter({
    name: 'svc_slot_errors_total',
    help: 'Failed requests to a slot, by error code (http_<status> for an engine error status).',
    labelNames: ['slot', 'code'] as const,
    registers: [registry],
    collect() {
      errors.reset();
      for (const slot of ctx.metrics.slots()) {
        for (const [code, n] of Object.entries(ctx.metrics.snapshot(slot).errors)) errors.inc({ slot, code }, n);
      }
    },
  });
  const tokens = new Counter({
    name: 'svc_slot_tokens_total',
    help: 'Generated tokens counted at a slot (streamed content deltas, or usage.completion_tokens).',
    labelNames: ['slot'] as const,
    registers: [registry],
    collect() {
      tokens.reset();
      for (const slot of slotNames()) tokens.inc({ slot }, ctx.metrics.snapshot(slot).tokens_total);
    },
  });
  const rate = new Gauge({
    name: 'svc_slot_tokens_per_second',
    help: 'Tokens per second over the last 5 s (0 with fewer than two token events).',
    labelNames: ['slot'] as const,
    registers: [registry],
    collect() {
      rate.reset();
      for (const slot of slotNames()) rate.set({ slot }, ctx.metrics.tokensPerSecond(slot));
    },
  });
  const state = new Gauge({
    name: 'svc_slot_state',
    help: 'The slot state: 1 for the current one, 0 for the others.',
    labelNames: ['slot', 'state'] as const,
    registers: [registry],
    collect() {
      state.reset();
      for (const view of ctx.supervisor.list({ memory: false })) {
        const states: readonly string[] = view.state === 'disabled' ? [...SLOT_STATES, 'disabled'] : SLOT_STATES;
        for (const s of states) state.set({ slot: view.name, state: s }, s === view.state ? 1 : 0);
      }
    },
  });
  const inFlight = new Gauge({
    name: 'svc_slot_in_flight',
    help: 'Requests in flight at a slot (a shared cold stream counts once).',
    labelNames: ['slot'] as const,
    registers: [registry],
    collect() {
      inFlight.reset();
      for (const view of ctx.supervisor.list({ memory: false })) inFlight.set({ slot: view.name }, view.in_flight);
    },
  });
  eventMetrics(prom, ctx, registry);
  const memoryRss = new Gauge({
    name: 'svc_memory_database_rss_bytes',
    help: 'Resident memory of the embedded memory database process (its own process, docs/memory.md); 0 when it is not running.',
    registers: [registry],
    async collect() {
      memoryRss.set((await ctx.memoryBanks.databaseRssBytes()) ?? 0);
    },
  });
  return { registry };
}

/** The event bus: published events, open streams, and events dropped for streams that read too slowly. */
function eventMetrics(prom: PromClient, ctx: ServerContext, registry: Registry): void {
  const { Counter, Gauge } = prom;
  const figure = (name: string, help: string, type: typeof Counter | typeof Gauge, read: () => number) => {
    const metric: Counter | Gauge = new type({
      name,
      help,
      registers: [registry],
      collect() {
        metric.reset();
        metric.inc(read());
      },
    });
  };
  figure('svc_events_published_total', 'Events published on the event bus since the gateway started.', Counter, () => ctx.events.stats().published);
  figure('svc_event_subscribers', 'Readers of the event bus now (open /api/events/stream connections).', Gauge, () => ctx.events.stats().subscribers);
  figure('svc_events_dropped_total', 'Events dropped for event streams that read too slowly (each reported to its stream as an events.gap).', Counter, () => ctx.events.stats().dropped);
  const auth = ctx.auth.verifier.stats;
  figure('svc_auth_argon2_verifications_total', 'argon2 verifications of bearer tokens: one per token first seen (or changed), not one per request.', Counter, () => auth.argon2);
  figure('svc_auth_invalid_total', 'Requests refused with auth.invalid (malformed, unknown, revoked or wrong tokens).', Counter, () => auth.invalid);
  figure('svc_auth_rate_limited_total', 'Requests refused with auth.rate_limited, before any argon2 work.', Counter, () => auth.rateLimited);
}

/**
 * prom-client is loaded on the first scrape (docs/performance.md: nothing is loaded that a
 * request does not need). Its counters and gauges are read at scrape time; the two
 * histograms are observed as requests end, from the start, so they are kept here.
 */
export function registerMetricsRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const duration = new SlotHistogram('svc_slot_request_duration_seconds', 'From the request reaching the gateway (slot loading included) to the end of the answer.', DURATION_BUCKETS);
  const ttft = new SlotHistogram('svc_slot_ttft_seconds', 'Streams: from the request reaching the gateway (slot loading included) to the first content delta.', TTFT_BUCKETS);
  const stop = ctx.metrics.listen({
    latency: (slot, ms) => duration.observe(slot, ms / 1000),
    ttft: (slot, ms) => ttft.observe(slot, ms / 1000),
    forget: (slot) => {
      duration.remove(slot);
      ttft.remove(slot);
    },
  });
  app.addHook('onClose', async () => stop());
  let built: Promise<{ registry: Registry }> | undefined;
  app.get('/api/metrics', async (_request, reply) => {
    const { registry } = await (built ??= import('prom-client').then((prom) => metricsRegistry(prom, ctx)));
    const text = `${await registry.metrics()}\n${duration.text()}\n${ttft.text()}`;
    return reply.header('content-type', registry.contentType).send(text);
  });
}
