import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { rejectNulBytes } from '../../../api/plugins/input-guard.ts';
import { DomainError } from '../../../platform/errors.ts';

const req = (parts: { params?: unknown; query?: unknown; body?: unknown }) =>
  ({ params: {}, query: {}, ...parts }) as unknown as FastifyRequest;

function locOf(r: FastifyRequest) {
  try {
    rejectNulBytes(r);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as DomainError).issues[0].loc;
  }
}

describe('rejectNulBytes', () => {
  it('names the field holding a NUL byte in the path, the query or a JSON body', () => {
    expect(locOf(req({ params: { id: 'a\u0000b' } }))).toEqual(['path', 'id']);
    expect(locOf(req({ query: { db_names: ['ok', 'x\u0000'] } }))).toEqual(['query', 'db_names', 1]);
    expect(locOf(req({ body: { items: [{ references: [{ id: 'q\u0000' }] }] } }))).toEqual([
      'body',
      'items',
      0,
      'references',
      0,
      'id',
    ]);
    expect(locOf(req({ body: { ['k\u0000']: 1 } }))).toEqual(['body', 'k\u0000']);
  });

  it('lets clean requests and raw upload bytes through (bytes are never walked one by one)', () => {
    expect(locOf(req({ query: { a: 'CCO' }, body: { n: 1, s: 'x', l: [null, true] } }))).toBeUndefined();
    const bytes = Buffer.alloc(16 * 1024 * 1024);
    const t0 = performance.now();
    expect(locOf(req({ body: bytes }))).toBeUndefined();
    expect(performance.now() - t0).toBeLessThan(50);
  });
});
