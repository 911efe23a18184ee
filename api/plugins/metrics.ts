/**
 * GET /metrics (Prometheus text format, no key) and the request latency histogram behind it:
 * every response is observed by route pattern (not the raw URL, so series stay bounded), method
 * and status. What else is exported is registered by the stack (bin/metrics.ts).
 */
import type { App } from '../types.ts';
import { LATENCY_BUCKETS, type MetricsRegistry } from '../../platform/metrics.ts';

export function registerMetrics(app: App, registry: MetricsRegistry): void {
  const latency = registry.histogram(
    'http_request_duration_seconds',
    'HTTP request latency by route pattern, method and status',
    LATENCY_BUCKETS,
  );
  app.addHook('onResponse', async (request, reply) => {
    latency.observe(reply.elapsedTime / 1000, {
      route: request.routeOptions.url ?? 'unmatched',
      method: request.method,
      status: String(reply.statusCode),
    });
  });
  app.get('/metrics', { config: { auth: false }, schema: { hide: true } }, async (_req, reply) => {
    reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8');
    return registry.render();
  });
}
