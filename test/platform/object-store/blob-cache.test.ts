import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CacheFullError,
  ChecksumMismatchError,
  createBlobCache,
} from '../../../platform/object-store/blob-cache.ts';
import type { ObjectStore } from '../../../platform/object-store/index.ts';
import { freshBucket } from '../../support/published-catalog.ts';

const SIZE = 300_000;
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const diskBytes = (dir: string): number =>
  readdirSync(dir).reduce((s, f) => s + statSync(join(dir, f)).size, 0);

describe('blob cache: a bounded, checksum-verified disk cache over S3 (moto)', () => {
  let store: ObjectStore;
  const blobs = Array.from({ length: 4 }, (_, i) => randomBytes(SIZE + i));
  const refs = blobs.map((b, i) => ({ key: `objs/blob-${i}`, sha256: sha(b), bytes: b.length }));
  beforeAll(async () => {
    store = await freshBucket();
    for (const [i, b] of blobs.entries()) await store.put(refs[i].key, b);
  });
  const newDir = (): string => mkdtempSync(join(tmpdir(), 'blob-cache-'));

  it('fetches on demand, then serves the verified local copy', async () => {
    const cache = await createBlobCache({ store, dir: newDir(), maxBytes: 10 * SIZE });
    const a = await cache.acquire(refs[0]);
    expect(readFileSync(a.path).equals(blobs[0])).toBe(true);
    a.release();
    (await cache.acquire(refs[0])).release();
    expect(cache.stats()).toMatchObject({ misses: 1, hits: 1, bytesFetched: blobs[0].length, entries: 1 });
  });

  it('evicts the least recently used files so the bytes on disk stay within the budget', async () => {
    const dir = newDir();
    const cache = await createBlobCache({ store, dir, maxBytes: Math.floor(2.5 * SIZE) });
    for (const i of [0, 1, 0, 2]) (await cache.acquire(refs[i])).release();
    // blob 1 was the least recently used when blob 2 needed room
    expect(readdirSync(dir).sort()).toEqual([refs[0].sha256, refs[2].sha256].sort());
    expect(diskBytes(dir)).toBeLessThanOrEqual(2.5 * SIZE);
    (await cache.acquire(refs[1])).release();
    expect(cache.stats()).toMatchObject({ misses: 4, hits: 1, evictions: 2, entries: 2 });
    expect(cache.stats().bytes).toBe(diskBytes(dir));
  });

  it('never evicts a file someone holds: a request that cannot fit is refused with CacheFullError', async () => {
    const cache = await createBlobCache({ store, dir: newDir(), maxBytes: Math.floor(1.5 * SIZE) });
    const held = await cache.acquire(refs[0]);
    await expect(cache.acquire(refs[1])).rejects.toBeInstanceOf(CacheFullError);
    expect(readFileSync(held.path).equals(blobs[0])).toBe(true);
    held.release();
    const b = await cache.acquire(refs[1]);
    expect(readFileSync(b.path).equals(blobs[1])).toBe(true);
    b.release();
  });

  it('shares one download between concurrent requests for the same object', async () => {
    const cache = await createBlobCache({ store, dir: newDir(), maxBytes: 10 * SIZE });
    const leases = await Promise.all([1, 2, 3].map(() => cache.acquire(refs[3])));
    expect(new Set(leases.map((l) => l.path)).size).toBe(1);
    expect(cache.stats().bytesFetched).toBe(blobs[3].length);
    leases.forEach((l) => l.release());
  });

  it('detects an object corrupted in the store, fetches it once more, then reports checksum_mismatch and keeps nothing', async () => {
    const dir = newDir();
    const cache = await createBlobCache({ store, dir, maxBytes: 10 * SIZE });
    const damaged = Buffer.from(blobs[2]);
    damaged[17] ^= 0xff;
    await store.put('objs/damaged', damaged);
    const err = await cache
      .acquire({ key: 'objs/damaged', sha256: refs[2].sha256, bytes: SIZE })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChecksumMismatchError);
    expect(err).toMatchObject({ code: 'checksum_mismatch', key: 'objs/damaged' });
    expect(cache.stats()).toMatchObject({ checksumFailures: 2, refetches: 1, entries: 0, bytes: 0 });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a transfer damaged once is fetched again and served intact', async () => {
    // Injected fault (a byte flipped in flight on the first transfer only): moto serves stored
    // bytes faithfully, so a transient corruption cannot be caused on the real server itself.
    let first = true;
    const flaky: Pick<ObjectStore, 'getStream' | 'head'> = {
      head: (key) => store.head(key),
      async getStream(key) {
        const bytes = Buffer.from(await store.getBytes(key));
        if (first) bytes[1000] ^= 0x01;
        first = false;
        return Readable.from([bytes]);
      },
    };
    const cache = await createBlobCache({ store: flaky, dir: newDir(), maxBytes: 10 * SIZE });
    const lease = await cache.acquire(refs[1]);
    expect(readFileSync(lease.path).equals(blobs[1])).toBe(true);
    expect(cache.stats()).toMatchObject({ checksumFailures: 1, refetches: 1 });
  });

  it('re-verifies files an earlier process left on disk, refetching one damaged since', async () => {
    const dir = newDir();
    const before = await createBlobCache({ store, dir, maxBytes: 10 * SIZE });
    for (const i of [0, 1]) (await before.acquire(refs[i])).release();
    const path = join(dir, refs[1].sha256);
    const bytes = readFileSync(path);
    bytes[5] ^= 0x10;
    writeFileSync(path, bytes);
    const after = await createBlobCache({ store, dir, maxBytes: 10 * SIZE });
    expect(after.stats()).toMatchObject({ entries: 2, bytes: blobs[0].length + blobs[1].length });
    for (const i of [0, 1]) {
      const lease = await after.acquire(refs[i]);
      expect(readFileSync(lease.path).equals(blobs[i])).toBe(true);
      lease.release();
    }
    expect(after.stats()).toMatchObject({ hits: 1, misses: 1, checksumFailures: 1 });
  });
});
