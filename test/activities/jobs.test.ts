import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildCatalog } from '../../engine/catalog/index.ts';
import { decodeJobResult } from '../../engine/export/index.ts';
import { createLocalObjectStore } from '../../platform/object-store/index.ts';
import { createLogger } from '../../platform/logger.ts';
import { createJobActivities } from '../../activities/jobs.ts';
import { mergeParts } from '../../activities/jobs-merge.ts';
import { tempDir } from '../workflows/support/stack.ts';
import { DEFAULT_TIER_LIMITS } from '../../platform/config.ts';
import { openStore, type Store } from '../../store/index.ts';

// The activities under test write no job rows, but the factory takes the jobs repository it closes over.
let store: Store;
beforeAll(async () => {
  store = await openStore({ pgliteDir: 'memory://', tierLimits: DEFAULT_TIER_LIMITS });
});
afterAll(() => store?.close());

const fixture = (f: string) => join(import.meta.dirname, '..', 'fixtures', 'jobs', f);

describe('job activities', () => {
  it('prepare, scan per shard and merge give the similarities Python RDKit computes (300 ChEMBL drugs, aspirin)', async () => {
    const ref = JSON.parse(await readFile(fixture('aspirin-top25.json'), 'utf8')) as {
      top: { id: string; similarity: number }[];
    };
    const dir = await tempDir('jobs-act');
    await buildCatalog({
      input: fixture('chembl-drugs-300.csv'),
      outDir: join(dir, 'cat', 'drugs'),
      id: 'drugs',
      name: 'drugs',
      smilesCol: 'smiles',
      idCol: 'id',
      shardRows: 64,
      threads: 1,
      progress: false,
    });
    const objects = createLocalObjectStore(join(dir, 'objects'));
    const acts = createJobActivities({
      log: createLogger({ level: 'warn', pretty: false }),
      jobs: store.jobs,
      objects,
      catalogDir: join(dir, 'cat'),
    });
    const prep = await acts.jobPrepare({
      jobName: 'job_t',
      smiles: 'CC(=O)Oc1ccccc1C(=O)O',
      dbNames: ['drugs'],
    });
    expect(prep.shards.length).toBeGreaterThan(3);
    const parts = [];
    for (const s of prep.shards)
      parts.push({
        ...s,
        ...(await acts.jobScanShard({
          jobName: 'job_t',
          catalog: 'drugs',
          shard: s.shard,
          fp: prep.fp,
          k: 25,
        })),
      });
    const merged = await acts.jobMerge({
      jobName: 'job_t',
      parts,
      k: 25,
      fp: prep.fp,
      query: prep.canonical,
    });
    const r = decodeJobResult(await objects.getBytes(merged.key));
    expect(r.rows).toBe(25);
    const byId = new Map(ref.top.map((t) => [t.id, t.similarity]));
    const last = ref.top[24].similarity;
    for (let i = 0; i < 25; i++) {
      expect(r.similarity[i]).toBeCloseTo(ref.top[i].similarity, 9);
      if (r.similarity[i] > last + 1e-9) expect(r.similarity[i]).toBeCloseTo(byId.get(r.id[i])!, 9);
    }
    expect(r.id[0]).toBe('CHEMBL25');
    // A retried scan reuses the part already written; a retried merge reuses the result.
    const again = await acts.jobScanShard({
      jobName: 'job_t',
      catalog: 'drugs',
      shard: 0,
      fp: prep.fp,
      k: 25,
    });
    expect(again.key).toBe(parts[0].key);
    expect(
      (await acts.jobMerge({ jobName: 'job_t', parts, k: 25, fp: prep.fp, query: prep.canonical })).rows,
    ).toBe(25);
  });

  it('rejects an unparsable query and an unknown database as non-retryable invalid_input', async () => {
    const dir = await tempDir('jobs-empty');
    const acts = createJobActivities({
      log: createLogger({ level: 'warn', pretty: false }),
      jobs: store.jobs,
      objects: createLocalObjectStore(join(dir, 'objects')),
      catalogDir: dir,
    });
    await expect(acts.jobPrepare({ jobName: 'j', smiles: 'C1CC', dbNames: ['x'] })).rejects.toMatchObject({
      type: 'invalid_input',
      nonRetryable: true,
    });
    await expect(acts.jobPrepare({ jobName: 'j', smiles: 'CCO', dbNames: ['nope'] })).rejects.toMatchObject({
      type: 'invalid_input',
      nonRetryable: true,
    });
  });
});

describe('mergeParts', () => {
  const part = (catalog: string, shard: number, rows: number[], scores: number[]) => ({
    catalog,
    shard,
    rows: Int32Array.from(rows),
    scores: Float32Array.from(scores),
  });

  it('keeps the best k in (score desc, catalog, shard, row) order and drops repeated ids', () => {
    const parts = [
      part('b', 0, [0, 1], [0.9, 0.5]),
      part('a', 1, [3, 4], [0.9, 0.7]),
      part('a', 0, [7, 8], [0.8, 0.5]),
    ];
    const ids = [
      ['b0', 'dup'],
      ['a3', 'a4'],
      ['a7', 'dup'],
    ];
    const idOf = (p: number, row: number) => ids[p][parts[p].rows.indexOf(row)];
    const m = mergeParts(parts, 5, idOf);
    expect(Array.from(m.part, (p, i) => idOf(p, m.row[i]))).toEqual(['a3', 'b0', 'a7', 'a4', 'dup']);
    expect(Array.from(m.score)).toEqual([0.9, 0.9, 0.8, 0.7, 0.5].map(Math.fround));
    expect(m.part[4]).toBe(2); // the tie at 0.5 goes to catalog a (shard 0) before catalog b
    expect(mergeParts(parts, 2, idOf).row.length).toBe(2);
  });
});
