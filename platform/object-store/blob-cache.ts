/**
 * A bounded local disk cache of immutable objects, verified by SHA-256: the disk layer of the shard
 * cache (engine/catalog/shard-cache.ts declares the interface it satisfies). Files are fetched on
 * demand from the object store into `dir`, hashed while they stream in, and renamed into place
 * only when the hash matches, so a file under its final name is always a verified copy. A
 * mismatch is fetched once more (a torn or corrupted transfer); a second mismatch rejects with
 * ChecksumMismatchError and leaves nothing behind. Total bytes on disk stay within maxBytes by
 * evicting least recently used files that no caller holds.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ObjectStore } from './types.ts';

/** Thrown when an object's bytes do not match the expected SHA-256, twice in a row. */
export class ChecksumMismatchError extends Error {
  readonly code = 'checksum_mismatch';
  readonly key: string;
  constructor(key: string, expected: string, got: string) {
    super(`object ${key}: SHA-256 ${got} differs from the expected ${expected} (fetched twice)`);
    this.name = 'ChecksumMismatchError';
    this.key = key;
  }
}

/** Thrown when the pinned files alone exceed the budget, so a new one cannot be made room for. */
export class CacheFullError extends Error {
  readonly code = 'cache_full';
  constructor(key: string, bytes: number, maxBytes: number) {
    super(`cannot cache ${key} (${bytes} bytes): the files in use fill the ${maxBytes}-byte budget`);
    this.name = 'CacheFullError';
  }
}

export interface BlobRef {
  key: string;
  sha256: string;
  bytes?: number;
}

export interface BlobCacheOptions {
  store: Pick<ObjectStore, 'getStream' | 'head'>;
  dir: string;
  maxBytes: number;
}

interface Entry {
  file: string;
  bytes: number;
  pins: number;
  /** Hashed by this process (files found on disk at start are re-hashed on first use). */
  verified: boolean;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Streams `key` into `tmp`, returning its SHA-256 and size. */
async function download(store: BlobCacheOptions['store'], key: string, tmp: string) {
  const hash = createHash('sha256');
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      bytes += chunk.length;
      cb(null, chunk);
    },
  });
  await pipeline(await store.getStream(key), tap, createWriteStream(tmp));
  return { sha256: hash.digest('hex'), bytes };
}

async function hashLocal(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Opens (creating) the cache directory; files left by an earlier process are adopted, oldest
 * modification first in the LRU order, and re-verified the first time they are used.
 */
export async function createBlobCache(opts: BlobCacheOptions) {
  const { dir, maxBytes } = opts;
  await mkdir(dir, { recursive: true });
  const entries = new Map<string, Entry>(); // by sha256, least recently used first
  const inflight = new Map<string, Promise<Entry>>();
  const c = { hits: 0, misses: 0, evictions: 0, refetches: 0, checksumFailures: 0, bytesFetched: 0 };
  let used = 0;
  let reserved = 0;

  const found: { sha: string; bytes: number; mtime: number }[] = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if (name.endsWith('.tmp')) await rm(path, { force: true });
    else if (HEX64.test(name)) {
      const s = await stat(path);
      found.push({ sha: name, bytes: s.size, mtime: s.mtimeMs });
    }
  }
  for (const f of found.sort((a, b) => a.mtime - b.mtime)) {
    entries.set(f.sha, { file: join(dir, f.sha), bytes: f.bytes, pins: 0, verified: false });
    used += f.bytes;
  }

  async function drop(sha: string, e: Entry): Promise<void> {
    entries.delete(sha);
    used -= e.bytes;
    await rm(e.file, { force: true });
  }

  /** Evicts unpinned files, least recently used first, until `incoming` more bytes fit. */
  async function makeRoom(key: string, incoming: number): Promise<void> {
    for (const [sha, e] of entries) {
      if (used + reserved + incoming <= maxBytes) return;
      if (e.pins > 0) continue;
      await drop(sha, e);
      c.evictions++;
    }
    if (used + reserved + incoming > maxBytes) throw new CacheFullError(key, incoming, maxBytes);
  }

  async function fetchVerified(ref: BlobRef): Promise<Entry> {
    const size = ref.bytes ?? (await opts.store.head(ref.key)) ?? 0;
    await makeRoom(ref.key, size);
    // Room for a download in flight is reserved, so parallel downloads cannot overshoot the budget.
    reserved += size;
    const file = join(dir, ref.sha256);
    try {
      for (let attempt = 0; ; attempt++) {
        const tmp = join(dir, `${ref.sha256}.${randomUUID()}.tmp`);
        try {
          const got = await download(opts.store, ref.key, tmp);
          c.bytesFetched += got.bytes;
          if (got.sha256 === ref.sha256) {
            if (got.bytes !== size) {
              // The store reported another size than it sent: make room for what arrived.
              reserved -= size;
              try {
                await makeRoom(ref.key, got.bytes);
              } finally {
                reserved += size;
              }
            }
            await rename(tmp, file);
            const e: Entry = { file, bytes: got.bytes, pins: 0, verified: true };
            entries.set(ref.sha256, e);
            used += got.bytes;
            return e;
          }
          c.checksumFailures++;
          if (attempt === 1) throw new ChecksumMismatchError(ref.key, ref.sha256, got.sha256);
          c.refetches++;
        } finally {
          await rm(tmp, { force: true });
        }
      }
    } finally {
      reserved -= size;
    }
  }

  async function entryFor(ref: BlobRef): Promise<Entry> {
    const e = entries.get(ref.sha256);
    if (e) {
      if (!e.verified) {
        if ((await hashLocal(e.file).catch(() => '')) !== ref.sha256) {
          // Damaged on local disk since an earlier process wrote it: fetch it again.
          c.checksumFailures++;
          await drop(ref.sha256, e);
          c.misses++;
          return fetchVerified(ref);
        }
        e.verified = true;
      }
      c.hits++;
      entries.delete(ref.sha256);
      entries.set(ref.sha256, e);
      return e;
    }
    c.misses++;
    return fetchVerified(ref);
  }

  return {
    dir,
    /**
     * A verified local copy of ref, fetched when absent; the file stays (is never evicted) until
     * release(). Concurrent acquires of one object share a single download.
     */
    async acquire(ref: BlobRef): Promise<{ path: string; release(): void }> {
      if (!HEX64.test(ref.sha256))
        throw new TypeError(`bad SHA-256 ${JSON.stringify(ref.sha256)} for ${ref.key}`);
      let p = inflight.get(ref.sha256);
      if (!p) {
        p = entryFor(ref).finally(() => inflight.delete(ref.sha256));
        inflight.set(ref.sha256, p);
      }
      const e = await p;
      e.pins++;
      let released = false;
      return {
        path: e.file,
        release() {
          if (!released) e.pins--;
          released = true;
        },
      };
    },
    stats: () => ({ ...c, bytes: used, maxBytes, entries: entries.size }),
  };
}

export type BlobCache = Awaited<ReturnType<typeof createBlobCache>>;
