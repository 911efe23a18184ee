/**
 * A small Prometheus registry (text exposition format 0.0.4): counters and histograms updated in
 * place, and gauges read when scraped. Enough for /metrics without a dependency; label values are
 * escaped, series are kept per label set.
 */

type Labels = Record<string, string>;

const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const key = (l: Labels) =>
  Object.keys(l)
    .sort()
    .map((k) => `${k}="${esc(l[k])}"`)
    .join(',');
const fmt = (name: string, labels: string, v: number) =>
  `${name}${labels ? `{${labels}}` : ''} ${Number.isFinite(v) ? v : v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN'}`;

interface Metric {
  render(): Promise<string[]> | string[];
}

export interface Counter {
  inc(labels?: Labels, by?: number): void;
}
export interface Histogram {
  observe(value: number, labels?: Labels): void;
}
/** A gauge or counter read at scrape time: a list of (labels, value). */
export type Collect = () =>
  Promise<{ labels?: Labels; value: number }[]> | { labels?: Labels; value: number }[];

export interface MetricsRegistry {
  counter(name: string, help: string): Counter;
  histogram(name: string, help: string, buckets: number[]): Histogram;
  /** A value read when scraped; `type` counter for totals kept elsewhere (e.g. pool stats). */
  collect(name: string, help: string, type: 'gauge' | 'counter', fn: Collect): void;
  render(): Promise<string>;
}

export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetricsRegistry(): MetricsRegistry {
  const metrics: Metric[] = [];
  const head = (name: string, help: string, type: string) => [
    `# HELP ${name} ${help}`,
    `# TYPE ${name} ${type}`,
  ];
  return {
    counter(name, help) {
      const series = new Map<string, number>();
      metrics.push({
        render: () => [...head(name, help, 'counter'), ...[...series].map(([l, v]) => fmt(name, l, v))],
      });
      return { inc: (labels = {}, by = 1) => series.set(key(labels), (series.get(key(labels)) ?? 0) + by) };
    },
    histogram(name, help, buckets) {
      const series = new Map<string, { counts: number[]; sum: number; count: number }>();
      metrics.push({
        render: () => {
          const out = head(name, help, 'histogram');
          for (const [l, s] of series) {
            const sep = l ? `${l},` : '';
            buckets.forEach((b, i) => out.push(fmt(`${name}_bucket`, `${sep}le="${b}"`, s.counts[i])));
            out.push(fmt(`${name}_bucket`, `${sep}le="+Inf"`, s.count));
            out.push(fmt(`${name}_sum`, l, s.sum), fmt(`${name}_count`, l, s.count));
          }
          return out;
        },
      });
      return {
        observe(value, labels = {}) {
          const k = key(labels);
          let s = series.get(k);
          if (!s) series.set(k, (s = { counts: buckets.map(() => 0), sum: 0, count: 0 }));
          buckets.forEach((b, i) => {
            if (value <= b) s.counts[i]++;
          });
          s.sum += value;
          s.count++;
        },
      };
    },
    collect(name, help, type, fn) {
      metrics.push({
        render: async () => {
          let values: Awaited<ReturnType<Collect>> = [];
          try {
            values = await fn();
          } catch {
            // A source that cannot answer now (e.g. Temporal down) is left out of this scrape.
          }
          return [...head(name, help, type), ...values.map((v) => fmt(name, key(v.labels ?? {}), v.value))];
        },
      });
    },
    async render() {
      const parts = await Promise.all(metrics.map((m) => m.render()));
      return `${parts.flat().join('\n')}\n`;
    },
  };
}
