import { describe, expect, it } from 'vitest';
import { createMetricsRegistry } from '../../platform/metrics.ts';

describe('metrics registry (Prometheus text format)', () => {
  it('renders counters, cumulative histogram buckets and collected gauges with escaped labels', async () => {
    const r = createMetricsRegistry();
    const c = r.counter('things_total', 'Things');
    c.inc({ kind: 'a' });
    c.inc({ kind: 'a' }, 2);
    c.inc({ kind: 'say "hi"\n' });
    const h = r.histogram('latency_seconds', 'Latency', [0.1, 1]);
    h.observe(0.05, { route: '/x' });
    h.observe(0.5, { route: '/x' });
    h.observe(3, { route: '/x' });
    r.collect('members', 'Members', 'gauge', async () => [{ value: 3 }]);
    r.collect('broken', 'A source that fails', 'gauge', () => {
      throw new Error('down');
    });
    const text = await r.render();
    expect(text).toContain('# TYPE things_total counter\nthings_total{kind="a"} 3\n');
    expect(text).toContain('things_total{kind="say \\"hi\\"\\n"} 1');
    expect(text).toContain('latency_seconds_bucket{route="/x",le="0.1"} 1\n');
    expect(text).toContain('latency_seconds_bucket{route="/x",le="1"} 2\n');
    expect(text).toContain('latency_seconds_bucket{route="/x",le="+Inf"} 3\n');
    expect(text).toContain('latency_seconds_sum{route="/x"} 3.55\nlatency_seconds_count{route="/x"} 3\n');
    expect(text).toContain('# TYPE members gauge\nmembers 3\n');
    expect(text).toContain('# TYPE broken gauge\n');
    expect(text).not.toMatch(/^broken /m);
  });
});
