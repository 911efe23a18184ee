import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createApiServices, type ApiServiceDeps } from '../../bin/api-services.ts';

/** Only what createApiServices reads while it is built; no request is served here. */
function deps(lines: { msg?: string }[]): ApiServiceDeps {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as { msg?: string });
      done();
    },
  });
  return {
    config: { temporal: { taskQueuePrefix: 'api-services-test' }, publicUrl: 'http://localhost' },
    log: pino({ level: 'debug' }, sink),
    store: {},
    objects: {},
  } as unknown as ApiServiceDeps;
}

describe('createApiServices', () => {
  it('starts the analysis thread at once, in the background', async () => {
    const lines: { msg?: string }[] = [];
    const t0 = performance.now();
    const services = createApiServices(deps(lines));
    // Building the services does not wait for the thread (RDKit takes a second or more to load).
    expect(performance.now() - t0).toBeLessThan(500);
    expect(lines.some((l) => l.msg === 'analysis thread started')).toBe(false);
    const deadline = Date.now() + 60_000;
    while (!lines.some((l) => l.msg === 'analysis thread started') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(lines.map((l) => l.msg)).toContain('analysis thread started');
    await services.close();
    expect(lines.some((l) => /failed to start/.test(l.msg ?? ''))).toBe(false);
  }, 70_000);
});
