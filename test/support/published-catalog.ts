/**
 * A real catalog (engine/catalog format, RDKit fixture fingerprints plus seeded random ones, three
 * shards) with a sidecar file and rejects.tsv, and a bucket on the suite's moto S3 server: what
 * the publish and shard-cache tests start from.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { createS3ObjectStore, type ObjectStore } from '../../platform/object-store/index.ts';
import { writeFormatCatalog } from '../../testkit/format-catalog.ts';
import { fixtureFps, randomFps } from '../engine/search/support/shards.ts';

/** Writes catalog `id` (2,100 rows in shards of 700) into a new temp directory. */
export function writeSmallCatalog(id: string): { dir: string; sorted: Uint8Array; rows: number } {
  const dir = mkdtempSync(join(tmpdir(), 'pubcat-'));
  const fps = new Uint8Array([...fixtureFps(), ...randomFps(1800, 97)]);
  const { sorted } = writeFormatCatalog(dir, id, fps, 700);
  writeFileSync(join(dir, 'shard-00000.3d.arrow'), 'a future sidecar of shard 0');
  writeFileSync(join(dir, 'rejects.tsv'), 'line\tinput\treason\n');
  return { dir, sorted, rows: fps.length / 256 };
}

/** A fresh bucket on the suite's S3-compatible server (moto). */
export async function freshBucket(): Promise<ObjectStore & { ensureBucket(): Promise<void> }> {
  const s3 = createS3ObjectStore({
    endpoint: inject('s3Endpoint'),
    region: 'us-east-1',
    bucket: `cat-${Date.now()}-${Math.floor(Math.random() * 1e6)}`,
    accessKeyId: 'test',
    secretAccessKey: 'test',
    forcePathStyle: true,
  });
  await s3.ensureBucket();
  return s3;
}
