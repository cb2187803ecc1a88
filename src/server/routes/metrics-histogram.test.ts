import { describe, expect, it } from 'vitest';
import { SlotHistogram } from './metrics-histogram.js';

describe('SlotHistogram', () => {
  it('renders cumulative buckets, +Inf, sum and count per slot in the Prometheus text format', () => {
    const h = new SlotHistogram('svc_x_seconds', 'Some help.', [0.1, 1]);
    h.observe('chat', 0.05);
    h.observe('chat', 0.5);
    h.observe('chat', 5);
    h.observe('a"b', 1);
    const lines = h.text().trim().split('\n');
    expect(lines.slice(0, 2)).toEqual(['# HELP svc_x_seconds Some help.', '# TYPE svc_x_seconds histogram']);
    expect(lines).toContain('svc_x_seconds_bucket{le="0.1",slot="chat"} 1');
    expect(lines).toContain('svc_x_seconds_bucket{le="1",slot="chat"} 2');
    expect(lines).toContain('svc_x_seconds_bucket{le="+Inf",slot="chat"} 3');
    expect(lines).toContain('svc_x_seconds_sum{slot="chat"} 5.55');
    expect(lines).toContain('svc_x_seconds_count{slot="chat"} 3');
    expect(lines).toContain('svc_x_seconds_bucket{le="1",slot="a\\"b"} 1');
    h.remove('chat');
    expect(h.text()).not.toContain('slot="chat"');
  });
});
