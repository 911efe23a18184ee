import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { catalogKey, openPublishedCatalog } from '../../engine/catalog/index.ts';
import { createS3ObjectStore, type ObjectStore } from '../../platform/object-store/index.ts';
import { loadReference } from '../support/fixture-catalog.ts';
import { writeSmallCatalog } from '../support/published-catalog.ts';

/** `molsearch catalog publish` and `catalog build` with S3_BUCKET, as real CLI processes against moto. */
const CLI = resolve('bin/molsearch.ts');
const bucket = `cli-${Date.now()}`;
let store: ObjectStore & { ensureBucket(): Promise<void> };
const env = () => ({
  PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
  DATA_DIR: mkdtempSync(join(tmpdir(), 'cli-data-')),
  LOG_LEVEL: 'warn',
  S3_BUCKET: bucket,
  S3_ENDPOINT: inject('s3Endpoint'),
  S3_ACCESS_KEY_ID: 'test',
  S3_SECRET_ACCESS_KEY: 'test',
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [CLI, ...args], { env: env(), timeout: 120_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  store = createS3ObjectStore({
    endpoint: inject('s3Endpoint'),
    region: 'us-east-1',
    bucket,
    accessKeyId: 'test',
    secretAccessKey: 'test',
    forcePathStyle: true,
  });
  await store.ensureBucket();
});

describe('molsearch catalog publish', () => {
  it('uploads the catalog named by --id under --catalog-dir to the S3 bucket and says what it sent', async () => {
    const cat = writeSmallCatalog('cli_pub');
    const { code, stdout } = await cli('catalog', 'publish', '--catalog-dir', cat.dir, '--id', 'cli_pub');
    expect(code).toBe(0);
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({
      published: 'cli_pub',
      store: 's3',
      files: 6,
      uploaded: 6,
      bytes_uploaded: expect.any(Number),
    });
    const remote = await openPublishedCatalog(store, 'cli_pub');
    expect(
      Buffer.from(await store.getBytes(remote.shardRef(1).key)).equals(
        readFileSync(join(cat.dir, 'shard-00001.arrow')),
      ),
    ).toBe(true);
  });

  it('answers a usage error naming the option when --id is missing or names no catalog', async () => {
    const missing = await cli('catalog', 'publish');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^--id: missing/);
    const cat = writeSmallCatalog('cli_other');
    const unknown = await cli('catalog', 'publish', '--catalog-dir', cat.dir, '--id', 'no_such');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^--catalog-dir: no catalog no_such in /);
    expect(await store.list('catalogs/no_such/')).toEqual([]);
  });
});

describe('molsearch catalog build with S3_BUCKET set', () => {
  it('publishes the catalog it built', async () => {
    const ref = await loadReference();
    const dir = mkdtempSync(join(tmpdir(), 'cli-build-'));
    const input = join(dir, 'in.smi');
    writeFileSync(
      input,
      ref.molecules
        .slice(0, 12)
        .map((m, i) => `${m.input} R${i}\n`)
        .join(''),
    );
    const out = join(dir, 'built');
    const { code, stderr } = await cli(
      'catalog',
      'build',
      '--input',
      input,
      '--out',
      out,
      '--id',
      'cli_built',
      '--smiles-col',
      '0',
      '--id-col',
      '1',
      '--threads',
      '1',
      '--no-admet',
    );
    expect(code, stderr).toBe(0);
    const remote = await openPublishedCatalog(store, 'cli_built');
    expect(remote.manifest.counts.molecules).toBe(12);
    expect(
      Buffer.from(await store.getBytes(catalogKey('cli_built', 'shard-00000.arrow'))).equals(
        readFileSync(join(out, 'shard-00000.arrow')),
      ),
    ).toBe(true);
  });
});
