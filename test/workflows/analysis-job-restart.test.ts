import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { writeSyntheticCatalog } from '../../testkit/synthetic-catalog.ts';
import { call, stackEnv, startTestStack, tempDir, waitStatus, type TestStack } from './support/stack.ts';

// An analysis job survives its worker: the stack (API + in-process worker, PGlite and the local
// object store on disk, the shared Temporal dev server) is stopped mid-job and started again over
// the same data directory and task queues; the job finishes from the chunks it had not done.
let env: Record<string, string>;
let dataDir: string;
let s: TestStack;

beforeAll(async () => {
  const dir = await tempDir('analysis-restart');
  dataDir = join(dir, 'data');
  const catalogDir = join(dir, 'catalogs');
  await writeSyntheticCatalog(catalogDir, 'src', 24_000, 2_000, 9);
  env = stackEnv(dataDir, catalogDir, inject('temporalAddress'), `ar-${randomBytes(4).toString('hex')}`);
  s = await startTestStack(env);
}, 120_000);
afterAll(async () => {
  await s?.stack.stop();
});

describe('analysis job durability', () => {
  it('finishes a whole-database job after the worker stops mid-job and a new one starts', async () => {
    const r = await call(s, 'GET', '/database_similarity?source_db=src&db_names=src', s.keyA);
    expect(r.status, r.raw).toBe(202);
    const job = r.body.job_name;
    let progress = { shards_done: 0, shards_total: 0 };
    const until = Date.now() + 240_000;
    while (progress.shards_done < 1 && Date.now() < until) {
      await new Promise((res) => setTimeout(res, 100));
      progress = (await call(s, 'GET', `/job_info?job_name=${job}`, s.keyA)).body.progress;
    }
    expect(progress.shards_total).toBe(12);
    expect(progress.shards_done).toBeGreaterThanOrEqual(1);
    // stop everything (worker included) mid-job, then start again over the same disk and queues
    const keys = { keyA: s.keyA, keyB: s.keyB };
    await s.stack.stop();
    const between = (await readdir(join(dataDir, 'objects', 'analysis-jobs', job))).filter((f) =>
      f.startsWith('part-'),
    ).length;
    s = await startTestStack(env, { keys });
    expect(await waitStatus(s, s.keyA, job, 280_000)).toBe('SUCCESS');
    const out = (await call(s, 'GET', `/analysis_result?job_name=${job}`, s.keyA)).body;
    expect(out.progress).toEqual({ shards_done: 12, shards_total: 12 });
    expect(out.result).toMatchObject({ source_db: 'src', molecules: 24_000, without_neighbour: 0 });
    // every molecule finds itself: the parts made before and after the restart assemble exactly
    expect(out.result.distribution).toMatchObject({ count: 24_000, min: 1, max: 1 });
    const parts = (await readdir(join(dataDir, 'objects', 'analysis-jobs', job))).filter((f) =>
      f.startsWith('part-'),
    ).length;
    expect(parts).toBe(12);
    expect(between).toBeLessThan(12);
  }, 600_000);
});
