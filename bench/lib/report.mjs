// The bench's output: a table on screen, one summary line of ratios, and the performance
// targets (docs/performance.md) checked against the figures: met, or missed by how much
// (shown, never asserted: the bench does not fail on them).
const f = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const signed = (value, digits = 2) => (Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(digits)}` : '-');
const pct = (value) => (Number.isFinite(value) ? `${Math.round(value * 100)}%` : '-');
const pad = (text, width) => String(text).padStart(width);

function cpuText(cpu) {
  if (!cpu) return '';
  return ['loadgen', 'gateway', 'upstream'].map((k) => (cpu[k] === undefined || cpu[k] < 0.005 ? '  -' : pad(pct(cpu[k]), 4))).join(' ');
}

function latencyBlock(title, byRoute, lines) {
  lines.push('', title, `${'route'.padEnd(8)}${'c'.padStart(4)}  ${'side'.padEnd(8)}${pad('p50', 8)}${pad('p90', 8)}${pad('p99', 8)}${pad('req/s', 9)}   cpu: loadgen gateway upstream`);
  for (const [route, byC] of Object.entries(byRoute)) {
    for (const [c, sides] of Object.entries(byC)) {
      const { direct: d, gateway: g, floor: fl, portkey: pk } = sides;
      lines.push(`${route.padEnd(8)}${pad(c, 4)}  ${'direct'.padEnd(8)}${pad(f(d.p50, 3), 8)}${pad(f(d.p90, 3), 8)}${pad(f(d.p99, 3), 8)}${pad(f(d.rps, 0), 9)}   ${cpuText(d.cpu)}`);
      if (fl) lines.push(`${''.padEnd(12)}  ${'floor'.padEnd(8)}${pad(f(fl.p50, 3), 8)}${pad(f(fl.p90, 3), 8)}${pad(f(fl.p99, 3), 8)}${pad(f(fl.rps, 0), 9)}   ${cpuText(fl.cpu)}  (bare node:http + undici proxy: ${signed(fl.p50 - d.p50, 3)} ms p50, ${pct(fl.rps / d.rps)} of direct)`);
      if (pk) lines.push(`${''.padEnd(12)}  ${'portkey'.padEnd(8)}${pad(f(pk.p50, 3), 8)}${pad(f(pk.p90, 3), 8)}${pad(f(pk.p99, 3), 8)}${pad(f(pk.rps, 0), 9)}   ${cpuText(pk.cpu)}  (Portkey 1.15.2: ${pk.errors + pk.non2xx} errors)`);
      lines.push(`${''.padEnd(12)}  ${'gateway'.padEnd(8)}${pad(f(g.p50, 3), 8)}${pad(f(g.p90, 3), 8)}${pad(f(g.p99, 3), 8)}${pad(f(g.rps, 0), 9)}   ${cpuText(g.cpu)}${fl ? `  (${signed(g.p50 - fl.p50, 3)} ms p50 and ${pct(g.rps / fl.rps)} of the floor's req/s)` : ''}`);
      lines.push(`${''.padEnd(12)}  ${'added'.padEnd(8)}${pad(signed(g.p50 - d.p50, 3), 8)}${pad(signed(g.p90 - d.p90, 3), 8)}${pad(signed(g.p99 - d.p99, 3), 8)}${pad(pct(g.rps / d.rps), 9)}`);
    }
  }
}

function streamBlock(byRoute, lines) {
  lines.push('', 'streaming (ms): TTFT = request sent -> first token read; gap = between two tokens read; transit = token written by the upstream -> read by the client',
    `${'route'.padEnd(8)}${'c'.padStart(4)}  ${'side'.padEnd(8)}${pad('TTFT p50', 10)}${pad('TTFT p99', 10)}${pad('gap p50', 9)}${pad('gap p99', 9)}${pad('transit p50', 13)}${pad('transit p99', 13)}${pad('tokens', 8)}${pad('reads', 7)}${pad('max/read', 10)}${pad('failed', 8)}`);
  for (const [route, byC] of Object.entries(byRoute)) {
    for (const [c, { direct: d, gateway: g, floor: fl, portkey: pk }] of Object.entries(byC)) {
      const row = (side, s) => `${pad(f(s.ttft_p50, 3), 10)}${pad(f(s.ttft_p99, 3), 10)}${pad(f(s.gap_p50, 3), 9)}${pad(f(s.gap_p99, 3), 9)}${pad(f(s.transit_p50, 3), 13)}${pad(f(s.transit_p99, 3), 13)}${pad(s.tokens, 8)}${pad(s.token_reads, 7)}${pad(s.max_tokens_per_read, 10)}${pad(s.failed, 8)}`;
      lines.push(`${route.padEnd(8)}${pad(c, 4)}  ${'direct'.padEnd(8)}${row('direct', d)}`);
      if (fl) lines.push(`${''.padEnd(12)}  ${'floor'.padEnd(8)}${row('floor', fl)}  (${signed(fl.ttft_p50 - d.ttft_p50, 3)} TTFT p50)`);
      if (pk) lines.push(`${''.padEnd(12)}  ${'portkey'.padEnd(8)}${row('portkey', pk)}`);
      lines.push(`${''.padEnd(12)}  ${'gateway'.padEnd(8)}${row('gateway', g)}`);
      lines.push(`${''.padEnd(12)}  ${'added'.padEnd(8)}${pad(signed(g.ttft_p50 - d.ttft_p50, 3), 10)}${pad(signed(g.ttft_p99 - d.ttft_p99, 3), 10)}${pad(signed(g.gap_p50 - d.gap_p50, 3), 9)}${pad(signed(g.gap_p99 - d.gap_p99, 3), 9)}${pad(signed(g.transit_p50 - d.transit_p50, 3), 13)}${pad(signed(g.transit_p99 - d.transit_p99, 3), 13)}`);
    }
  }
}

/** The performance targets (docs/performance.md) against this run's figures. */
export function checkTargets(r) {
  const remote = r.latency.remote;
  const s = r.streaming;
  const sse = r.sse_throughput.remote;
  const sameCounts = Object.values(s).every((byC) => Object.values(byC).every(({ direct, gateway }) => direct.tokens === gateway.tokens && gateway.max_tokens_per_read <= direct.max_tokens_per_read));
  const floorAdded = remote.c1.floor.p50 - remote.c1.direct.p50;
  // [measure, target text, value, met?, unit, how far from the target (same unit)]
  const rows = [
    ['throughput at c=64, not streaming (remote), of the floor', '>= 0.85', r.throughput.remote.of_floor, (v) => v >= 0.85, 'x floor', (v) => v - 0.85],
    ['throughput at c=16, SSE with 16 chunks (remote), of the floor', '>= 0.95', sse.gateway.streams_per_s / sse.floor.streams_per_s, (v) => v >= 0.95, 'x floor', (v) => v - 0.95],
    ['added latency at c=1, p50 (remote), over the floor\'s own', '<= +0.15 ms', remote.c1.gateway.p50 - remote.c1.direct.p50 - floorAdded, (v) => v <= 0.15, 'ms', (v) => 0.15 - v],
    ['  for scale: what the floor itself adds at c=1, p50', '-', floorAdded, () => true, 'ms', () => 0],
    ['added time to first token, p50 (remote, c=1)', '<= 0.25 ms', s.remote.c1.gateway.ttft_p50 - s.remote.c1.direct.ttft_p50, (v) => v <= 0.25, 'ms', (v) => 0.25 - v],
    ['  for scale: the floor\'s added time to first token', '-', s.remote.c1.floor.ttft_p50 - s.remote.c1.direct.ttft_p50, () => true, 'ms', () => 0],
    ['start-up to listening', '<= 250 ms', r.startup.listening_ms, (v) => v <= 250, 'ms', (v) => 250 - v],
    ['  for scale: node -e 0 on this machine', '-', r.startup.bare_node_ms, () => true, 'ms', () => 0],
    ['cold slot, beyond the engine\'s own ready time', '<= 10 ms', r.cold_slot.overhead_ms, (v) => v <= 10, 'ms', (v) => 10 - v],
    ['idle RSS above a bare node process', '<= 30 MB', r.rss.idle_start_mb - r.rss.bare_node_mb, (v) => v <= 30, 'MB', (v) => 30 - v],
    ['RSS under the bench\'s load (peak)', '<= 120 MB', r.rss.peak_mb, (v) => v <= 120, 'MB', (v) => 120 - v],
    ['auth mode: added p50 at c=1 (bearer token, v1-only)', '<= 30 us', r.auth.c1.added_p50_us, (v) => v <= 30, 'us', (v) => 30 - v],
    ['auth mode: added p50 at c=64', '<= 30 us', r.auth.c64.added_p50_us, (v) => v <= 30, 'us', (v) => 30 - v],
    ['  for scale: auth mode throughput at c=64, of default mode', '-', r.auth.c64.rps_ratio, () => true, 'x', () => 0],
    ['  the guard\'s own time per request (in-process)', '-', r.auth.guard_check_us, () => true, 'us', () => 0],
    ['front-door checks (admission), per request, in-process', '<= 1 us', r.front_door.served_mix_ns / 1000, (v) => v <= 1, 'us', (v) => 1 - v],
    ['  for scale: a refused request (its error object)', '-', r.front_door.by_kind_ns['a page elsewhere, a no-cors POST (refused)'] / 1000, () => true, 'us', () => 0],
    ['throughput at c=64 over Portkey\'s', '>= 10x', r.throughput.remote.over_portkey, (v) => v >= 10, 'x Portkey', (v) => v - 10],
    ['chunk coalescing (all stream runs)', 'none', sameCounts ? 0 : 1, (v) => v === 0, sameCounts ? 'none' : 'seen', () => 0],
    [`${r.streams_held.streams} concurrent streams held`, '1000 held, 0 errors', r.streams_held.streams >= 1000 ? r.streams_held.failed : NaN, (v) => v === 0, 'failed', () => 0],
    [`RSS growth after ${r.hostile_input.requests} hostile requests`, '< 64 MB', r.hostile_input.growth_mb, (v) => v < 64, 'MB', (v) => 64 - v],
    ['hostile requests answered 5xx other than 502/504', '0', r.hostile_input.unexpected, (v) => v === 0, 'answers', () => 0],
    ...(r.fuzz ? [['fuzzer: kinds of failure over every route (default and auth mode)', '0', r.fuzz.passed ? 0 : (r.fuzz.default?.failures ?? 0) + (r.fuzz.auth?.failures ?? 0) || NaN, (v) => v === 0, 'kinds', () => 0]] : []),
  ];
  const round = (v) => Math.round(v * 1000) / 1000;
  return rows.map(([measure, target, value, ok, unit, margin]) => ({ measure, target, value: round(value), unit, met: ok(value), margin: round(margin(value)) }));
}

export function render(r) {
  const lines = [`svc bench  ${r.meta.date}  node ${r.meta.node}  ${r.meta.cpus} cores  load average ${r.meta.load_before.join(' ')} before, ${r.meta.load_after.join(' ')} after`];
  lines.push(`medians of ${r.meta.options.reps} repetitions; ${r.meta.options.durationS} s per load run; times in ms`);
  latencyBlock('non-streaming latency (closed loop: each of c connections sends its next request when the last is answered)', r.latency, lines);
  streamBlock(r.streaming, lines);
  const h = r.streams_held;
  lines.push('', `concurrent streams: ${h.streams} held through the gateway (${r.meta.options.holdChunks} tokens, ${r.meta.options.holdIntervalMs} ms apart): ${h.failed} failed, all open within ${f(h.ttft_p99, 0)} ms (TTFT p99), wall ${f(h.wall_ms, 0)} ms`);
  lines.push(`gateway RSS: ${f(r.rss.idle_start_mb, 1)} MB idle after start, ${f(r.rss.idle_after_load_mb, 1)} MB idle after load, ${f(r.rss.peak_mb, 1)} MB peak under load (${f(r.rss.peak_streams_mb, 1)} MB with ${h.streams} streams)`);
  lines.push(`  of the idle RSS, anonymous (the process's own) ${f(r.rss.idle_start_anon_mb, 1)} MB after start, ${f(r.rss.idle_after_load_anon_mb, 1)} MB after load; the rest is mapped files, mostly the node binary (shared)`);
  lines.push(`  for scale: node -e alone ${f(r.rss.bare_node_mb, 1)} MB; the floor proxy (node:http + undici) ${f(r.rss.floor_idle_start_mb, 1)} MB idle, ${f(r.rss.floor_after_load_mb, 1)} MB after the same non-streaming load`);
  lines.push(`  imported alone, each adds (MB of RSS / ms of import): ${Object.entries(r.rss.dependency_mb).map(([m, mb]) => `${m} ${f(mb, 1)}/${f(r.startup.import_ms?.[m], 0)}`).join(', ')}`);
  const st = r.startup;
  lines.push(`gateway start-up: ${f(st.listening_ms, 0)} ms to its "listening" line, ${f(st.health_ms, 0)} ms to answering /api/health/system (node -e 0 alone: ${f(st.bare_node_ms, 0)} ms)`);
  if (st.first_start_listening_ms !== undefined) lines.push(`  to listening: a build's first start (no code cache yet) ${f(st.first_start_listening_ms, 0)} ms; with SVC_CODE_CACHE=0 ${f(st.no_code_cache_listening_ms, 0)} ms; the module tree (SVC_BUNDLE=0) ${f(st.module_tree_listening_ms, 0)} ms`);
  const c = r.cold_slot;
  lines.push(`cold slot: ${f(c.total_ms, 0)} ms to answer, of which the engine's own start ${f(c.engine_ms, 0)} ms; the gateway adds ${f(c.overhead_ms, 1)} ms over the same engine started by hand (${f(c.direct?.total_ms, 0)} ms, of which ${f(c.direct?.engine_ms, 0)} ms its own start); ${f(c.spawn_ms, 1)} ms pass before the engine's executable runs, and ${f(c.notice_ms, 1)} ms more than by hand from ready to the answer`);
  if (c.overhead_vs_warm_ms !== undefined) lines.push(`  earlier measures: less a warm answer instead of the engine's first ${f(c.overhead_vs_warm_ms, 1)} ms; that, and counted from Node's start in the engine (the bench before 2026-11-25) ${f(c.overhead_node_origin_ms, 1)} ms`);
  const hi = r.hostile_input;
  lines.push(`hostile input: ${hi.requests} requests (${hi.rounds} rounds of every hostile body on every /v1 route, ${hi.warm_up_rounds} of them warm-up): RSS peak by round ${hi.peaks_mb.map((p) => f(p, 0)).join(', ')} MB; growth over the warm-up peak ${signed(hi.growth_mb, 1)} MB; ${f(hi.after_mb, 1)} MB after; statuses ${Object.entries(hi.statuses).map(([s, n]) => `${s} x${n}`).join(', ')}`);
  if (r.fuzz) {
    const fz = r.fuzz;
    const mode = (m) => (m ? `${m.sent} requests in ${f(m.seconds, 1)} s, ${m.failures} kinds of failure` : 'not run');
    lines.push(`fuzzer (seed ${fz.seed}, ${fz.routes} routes): default mode ${mode(fz.default)}; auth mode ${mode(fz.auth)}${fz.passed ? '' : ' (FAILED: see fuzz.output_tail in the results file)'}`);
  }
  const sse = r.sse_throughput;
  lines.push('', 'SSE throughput: whole streams per second, 16 chunks back to back, 16 streams at a time (failed streams do not count)');
  for (const [route, sides] of Object.entries(sse)) {
    lines.push(`  ${route.padEnd(8)}${Object.entries(sides).map(([side, v]) => `${side} ${f(v.streams_per_s, 0)}/s${v.failed ? ` (${v.failed} of ${v.streams} failed)` : ''}`).join('   ')}`);
  }
  lines.push('', 'targets (docs/performance.md; shown, not asserted; "by" is how far inside (+) or outside (-) the target)');
  for (const t of r.targets) {
    const shown = t.target === '-' ? '' : `target ${t.target}${t.met ? '' : `, missed by ${f(Math.abs(t.margin), 3)}`}`;
    lines.push(`  ${t.target === '-' ? '      ' : t.met ? 'met   ' : 'MISSED'}  ${t.measure.padEnd(64)} ${(Number.isFinite(t.value) ? String(t.value) : '-').padStart(9)} ${t.unit.padEnd(10)} ${shown}`);
  }
  return lines.join('\n');
}

/** The one-line summary of the ratios. */
export function summaryLine(r) {
  const cl = r.latency;
  const added = (route, c, p) => signed(cl[route][c].gateway[p] - cl[route][c].direct[p], 3);
  const s = r.streaming.remote.c1;
  return `ratios: added p50 c=1 ${added('remote', 'c1', 'p50')} ms (slot ${added('slot', 'c1', 'p50')}); added p99 c=64 ${added('remote', 'c64', 'p99')} ms; `
    + `added TTFT ${signed(s.gateway.ttft_p50 - s.direct.ttft_p50, 3)} ms; throughput ${pct(r.throughput.remote.ratio)} of direct (slot ${pct(r.throughput.slot.ratio)}), ${f(r.throughput.remote.of_floor, 2)}x the floor, ${f(r.throughput.remote.over_portkey, 1)}x Portkey; `
    + `RSS ${f(r.rss.idle_start_mb, 0)}/${f(r.rss.peak_mb, 0)} MB idle/load, ${signed(r.hostile_input.growth_mb, 0)} MB after hostile input; ${r.streams_held.streams} streams ${r.streams_held.failed} failed; targets met ${r.targets.filter((t) => t.met && t.target !== '-').length}/${r.targets.filter((t) => t.target !== '-').length}`
    + (r.structured ? `; built-in engine ${f(r.structured.json_schema_tokens_per_s, 0)} tokens/s with a JSON schema, ${f(r.structured.plain_tokens_per_s, 0)} without (${f(r.structured.ratio, 2)}x)` : '')
    + (r.omni ? `; omni loop +${f(r.omni.added_per_round_ms, 2)} ms per round over the model's own time (${f(r.omni.ratio, 2)}x two direct calls, tool ${f(r.omni.tool_ms, 2)} ms)` : '')
    + (r.peers ? `; through a gateway to two peers ${pct(r.peers.throughput.ratio)} of the two hit directly (c=${r.peers.throughput.connections}, ${signed(r.peers.throughput.added_p50_ms, 2)} ms p50), a peer SIGKILLed: breaker open after ${f(r.peers.failover.breaker_open_ms, 0)} ms, ${r.peers.failover.failed} failed, ${r.peers.failover.retried} retried` : '')
    + (r.dashboard?.cold ? `; dashboard first load ${f(r.dashboard.cold.fcp_ms, 0)} ms to first paint, ${f(r.dashboard.cold.interactive_ms, 0)} ms to interactive, ${f(r.dashboard.cold.bytes / 1024, 1)} KiB (warm ${f(r.dashboard.warm.interactive_ms, 0)} ms, ${f(r.dashboard.warm.bytes / 1024, 1)} KiB)` : '');
}
