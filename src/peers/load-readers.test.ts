import { describe, expect, it } from 'vitest';
import { loadFromLlamaSlots, loadFromStatus, loadFromVllmMetrics, promGauge } from './load-readers.js';

const METRICS = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 3.0
vllm:num_requests_running_total{model_name="m"} 99
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} 2.0
vllm:num_requests_waiting{engine="1",model_name="m"} 1
`;

describe('load readers', () => {
  it('sum a Prometheus gauge over its label sets, and leave other metrics with its prefix alone', () => {
    expect(promGauge(METRICS, 'vllm:num_requests_running')).toBe(3);
    expect(promGauge(METRICS, 'vllm:num_requests_waiting')).toBe(3);
    expect(promGauge(METRICS, 'vllm:gpu_cache_usage_perc')).toBeNull();
  });

  it('read vLLM load as running plus waiting; refuse metrics without either', () => {
    expect(loadFromVllmMetrics(METRICS, ['m'])).toEqual({ loaded: ['m'], in_flight: 6, free_memory_mib: null });
    expect(() => loadFromVllmMetrics('up 1\n', ['m'])).toThrow(/num_requests_running/);
  });

  it("read a svc gateway's /api/status: ready slots' models, in flight, free memory", () => {
    const status = { slots: { slots: [{ state: 'ready', model: 'tiny' }, { state: 'stopped', model: 'big' }] }, load: { in_flight: 4, free_memory_mib: 1234 } };
    expect(loadFromStatus(status)).toEqual({ loaded: ['tiny'], in_flight: 4, free_memory_mib: 1234 });
    expect(() => loadFromStatus({})).toThrow(/slots/);
  });

  it("count llama-server's busy slots", () => {
    expect(loadFromLlamaSlots([{ id: 0, is_processing: true }, { id: 1, is_processing: false }], ['m']).in_flight).toBe(1);
  });
});
