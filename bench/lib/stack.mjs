// What a stack apply costs beyond the engines' own start: three built-in engine slots on the
// tiny model started two ways on the same gateway, alternating, medians reported:
//   - direct: three existing, stopped slots loaded with three parallel POST /api/slots/<n>/load;
//   - apply:  POST /api/stacks/<slug>/apply of a stack naming three new slots (plan, guards,
//             three slot files, capabilities and the active record written as one journaled
//             change set, the config reloaded, then the same three parallel loads).
// The difference of the medians is what the apply adds.
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { median } from './load.mjs';
import { startGateway } from './processes.mjs';
import { tinyModelHome } from './tiny-home.mjs';

const call = async (url, method, path, body) => {
  const res = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(method !== 'GET' && { body: JSON.stringify(body ?? {}) }) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};

export async function stackApplyBeside({ reps = 5 } = {}) {
  const root = await tinyModelHome('svc-bench-stack-');
  const gw = await startGateway({ home: root, wrapper: '/bin/false' });
  const row = (slot) => ({ slot, model: 'tiny', device: 'cpu', provider: 'builtin' });
  const direct = [];
  const apply = [];
  const commit = [];
  try {
    for (const n of ['d1', 'd2', 'd3']) await call(gw.url, 'POST', '/api/slots', { name: n, model: 'tiny', device: 'cpu', provider: 'builtin', ctx_size: 512 });
    for (let rep = 0; rep < reps; rep++) {
      const names = ['a', 'b', 'c'].map((x) => `${x}${rep}`);
      await call(gw.url, 'POST', '/api/stacks', { slug: `s${rep}`, name: `s${rep}`, slots: names.map(row) });
      // Everything stopped before each measure: the stack apply unloads the slots it does not name.
      for (const v of (await call(gw.url, 'GET', '/api/slots')).slots) if (v.state === 'ready') await call(gw.url, 'POST', `/api/slots/${v.name}/unload`);
      let t0 = performance.now();
      await Promise.all(['d1', 'd2', 'd3'].map((n) => call(gw.url, 'POST', `/api/slots/${n}/load`)));
      direct.push(performance.now() - t0);
      for (const n of ['d1', 'd2', 'd3']) await call(gw.url, 'POST', `/api/slots/${n}/unload`);
      t0 = performance.now();
      const result = await call(gw.url, 'POST', `/api/stacks/s${rep}/apply`);
      apply.push(performance.now() - t0);
      commit.push(result.commit_ms);
      if (!result.results.every((r) => r.ok)) throw new Error(`apply failed: ${JSON.stringify(result.results)}`);
    }
  } finally {
    await gw.stop();
    rmSync(root, { recursive: true, force: true });
  }
  const r = (x) => Math.round(x * 10) / 10;
  return {
    reps,
    direct_three_loads_ms: r(median(direct)),
    apply_three_slots_ms: r(median(apply)),
    apply_beyond_engine_start_ms: r(median(apply) - median(direct)),
    commit_ms: r(median(commit)),
    runs: { direct: direct.map(r), apply: apply.map(r) },
  };
}
