import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CatalogError,
  MANIFEST_FILE,
  catalogKey,
  listPublishedCatalogs,
  openCatalog,
  openPublishedCatalog,
  publishCatalog,
} from '../../../engine/catalog/index.ts';
import { createBlobCache } from '../../../platform/object-store/blob-cache.ts';
import type { ObjectStore } from '../../../platform/object-store/index.ts';
import { freshBucket, writeSmallCatalog } from '../../support/published-catalog.ts';

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

describe('publishing a catalog to S3 (moto) and fetching it back', () => {
  let store: ObjectStore;
  const cat = writeSmallCatalog('pub_a');
  beforeAll(async () => {
    store = await freshBucket();
  });

  it('uploads the manifest, every shard and the sidecar files with their SHA-256, publication.json last', async () => {
    const r = await publishCatalog({ dir: cat.dir, store });
    const names = r.files.map((f) => f.file);
    expect(names).toEqual([
      'rejects.tsv',
      'shard-00000.3d.arrow',
      'shard-00000.arrow',
      'shard-00001.arrow',
      'shard-00002.arrow',
      MANIFEST_FILE,
    ]);
    for (const f of r.files) {
      const local = readFileSync(join(cat.dir, f.file));
      expect(f.sha256).toBe(sha(local));
      expect(Buffer.from(await store.getBytes(catalogKey('pub_a', f.file))).equals(local)).toBe(true);
    }
    expect(r.uploaded).toBe(6);
    expect(await listPublishedCatalogs(store)).toEqual(['pub_a']);
  });

  it('opens the published manifest and hands out shard references that fetch identical bytes into the disk cache', async () => {
    const local = await openCatalog(cat.dir);
    const remote = await openPublishedCatalog(store, 'pub_a');
    expect(remote.manifest).toEqual(local.manifest);
    const cache = await createBlobCache({ store, dir: mkdtempSync(join(tmpdir(), 'blobs-')), maxBytes: 1e9 });
    for (let i = 0; i < local.manifest.shards.length; i++) {
      const lease = await cache.acquire(remote.shardRef(i));
      expect(readFileSync(lease.path).equals(readFileSync(local.shardPath(i)))).toBe(true);
      lease.release();
    }
    const side = await cache.acquire(remote.fileRef('shard-00000.3d.arrow')!);
    expect(readFileSync(side.path, 'utf8')).toBe('a future sidecar of shard 0');
    side.release();
    expect(cache.stats()).toMatchObject({ misses: 4, hits: 0, checksumFailures: 0 });
  });

  it('a rerun uploads only the files that changed', async () => {
    expect((await publishCatalog({ dir: cat.dir, store })).uploaded).toBe(0);
    writeFileSync(join(cat.dir, 'shard-00000.3d.arrow'), 'a newer sidecar');
    const r = await publishCatalog({ dir: cat.dir, store });
    expect(r.uploaded).toBe(1);
    expect(Buffer.from(await store.getBytes(catalogKey('pub_a', 'shard-00000.3d.arrow'))).toString()).toBe(
      'a newer sidecar',
    );
  });

  it('refuses a local catalog whose shard differs from its manifest checksum, before uploading anything', async () => {
    const bad = writeSmallCatalog('pub_bad');
    const path = join(bad.dir, 'shard-00001.arrow');
    const bytes = readFileSync(path);
    bytes[bytes.length >> 1] ^= 0x01;
    writeFileSync(path, bytes);
    const err = await publishCatalog({ dir: bad.dir, store }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CatalogError);
    expect(err).toMatchObject({
      code: 'catalog_corrupt',
      message: expect.stringMatching(/shard-00001\.arrow/),
    });
    expect(await store.list('catalogs/pub_bad/')).toEqual([]);
  });

  it('an unpublished catalog id is catalog_not_found', async () => {
    await expect(openPublishedCatalog(store, 'nope')).rejects.toMatchObject({ code: 'catalog_not_found' });
  });
});
