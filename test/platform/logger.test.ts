import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { createLogger, redactSecrets } from '../../platform/logger.ts';

/** A logger writing JSON lines into memory, as the service writes them to stdout. */
function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  return { log: createLogger({ level: 'debug', pretty: false, destination }), text: () => lines.join('\n') };
}

const KEY = 'ms_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v';

describe('log redaction (issue 15, part 7)', () => {
  it('redacts keys in query strings, our keys anywhere, bearer tokens and URL passwords', () => {
    expect(redactSecrets(`/molsearch?search_input=CCO&api_key=${KEY}&n=5`)).toBe(
      '/molsearch?search_input=CCO&api_key=[redacted]&n=5',
    );
    expect(redactSecrets('/x?key=abc123&y=1')).toBe('/x?key=[redacted]&y=1');
    expect(redactSecrets(`unknown key ${KEY} refused`)).not.toContain(KEY);
    expect(redactSecrets('Authorization: Bearer abc.def-ghi')).toBe('Authorization: Bearer [redacted]');
    expect(redactSecrets('postgres://app:hunter2@db:5432/ms')).toBe('postgres://app:[redacted]@db:5432/ms');
    expect(redactSecrets('/molsearch?search_input=CC(=O)O&keyword=1')).toBe(
      '/molsearch?search_input=CC(=O)O&keyword=1',
    );
  });

  it('keeps every secret out of the request log of a real Fastify app, errors included', async () => {
    const { log, text } = capture();
    const app = Fastify({ loggerInstance: log as FastifyBaseLogger });
    app.get('/molsearch', async (request) => {
      throw new Error(
        `upstream GET http://s3.local/bucket/x?X-Amz-Signature=deadbeef failed for ${request.url}`,
      );
    });
    app.get('/ok', async () => ({ ok: true }));
    await app.inject({ method: 'GET', url: `/molsearch?search_input=CCO&api_key=${KEY}` });
    await app.inject({
      method: 'GET',
      url: `/ok?key=${KEY}`,
      headers: { 'x-api-key': KEY, authorization: `Bearer ${KEY}`, cookie: 'session=s3cr3t' },
    });
    log.info({ url: `http://h/p?token=tok123`, nested: { msg: `echo ${KEY}` } }, `message with ${KEY}`);
    log.error({ err: new Error(`bad key ${KEY}`) }, 'failed');
    await app.close();
    const out = text();
    expect(out).toContain('incoming request'); // the request log is there ...
    expect(out).toContain('api_key=[redacted]'); // ... with the parameter named but not its value
    expect(out).toContain('/molsearch?search_input=CCO');
    for (const secret of [KEY, 'deadbeef', 's3cr3t', 'tok123']) expect(out).not.toContain(secret);
  });
});
