import { beforeAll, describe, expect, it } from 'vitest';
import { getRDKit, type RDKitModule } from '../../../../engine/chem/rdkit.ts';
import {
  bitsVector,
  centroidOf,
  embeddingQuery,
  embedMorgan,
  embedMorganList,
} from '../../../../engine/analysis/embed/embeddings.ts';
import { prepareCentroid, prepareTanimoto } from '../../../../engine/search/query.ts';
import { scanShardTopK } from '../../../../engine/search/shard-memory.ts';
import { popcountOf } from '../../../../engine/search/kernel-js.ts';
import { readTestShard, shardBytes } from '../../search/support/shards.ts';
import { expectAnalysisError, fingerprintsOf, ref } from '../support/reference.ts';

let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

describe('Morgan embeddings', () => {
  it('bits: 2048 entries of 0/1 whose set bits are the RDKit count fingerprint’s bits', () => {
    const m = ref.morgan_counts[0];
    const e = embedMorgan(rd, m.smiles, 'bits');
    if ('error' in e) throw new Error(e.error);
    expect(e.vector.length).toBe(2048);
    const ones = [...e.vector.keys()].filter((i) => e.vector[i] === 1).map(String);
    expect(ones).toEqual(Object.keys(m.counts));
    expect(e.vector.reduce((s, x) => s + x, 0)).toBe(popcountOf(e.fp));
  });

  it('counts: the RDKit count fingerprint as a vector', () => {
    const m = ref.morgan_counts.find((x) => x.smiles === '[2H]C([2H])([2H])O')!;
    const e = embedMorgan(rd, m.smiles, 'counts');
    if ('error' in e) throw new Error(e.error);
    const got = Object.fromEntries(
      [...e.vector.keys()].filter((i) => e.vector[i]).map((i) => [String(i), e.vector[i]]),
    );
    expect(got).toEqual(m.counts);
  });

  it('reports bad molecules per row and refuses counts it cannot vouch for', () => {
    const rows = embedMorganList(rd, ['CCO', 'not a smiles', '', 'CC~C'], 'counts');
    expect('error' in rows[0]).toBe(false);
    expect(rows[1]).toEqual({ error: 'unparsable SMILES' });
    expect(rows[2]).toEqual({ error: 'empty SMILES' });
    expect((rows[3] as { error: string }).error).toMatch(/counts are not available/);
    expect('error' in embedMorgan(rd, 'CC~C', 'bits')).toBe(false);
  });

  it('refuses an empty or oversized list', () => {
    expectAnalysisError(() => embedMorganList(rd, [], 'bits'), 'empty_input', 'search_input');
    expectAnalysisError(
      () => embedMorganList(rd, ['C', 'CC', 'CCC'], 'bits', 2),
      'too_large',
      'search_input',
    );
  });

  it('centroid of bit embeddings is the bit-frequency vector of the centroid search', async () => {
    const fps = await fingerprintsOf(ref.set_a.smiles.slice(0, 10));
    const c = centroidOf(fps.map(bitsVector));
    expect(Array.from(c)).toEqual(Array.from(prepareCentroid(fps).weights));
    expectAnalysisError(() => centroidOf([]), 'empty_input');
    expectAnalysisError(() => centroidOf([[1, 2], [1]]), 'dimension_mismatch');
  });
});

describe('search by embedding', () => {
  it('a 0/1 embedding searches as its fingerprint by exact Tanimoto', async () => {
    const [fp] = await fingerprintsOf([ref.set_a.smiles[5]]);
    const q = embeddingQuery(bitsVector(fp));
    expect(q).toEqual(prepareTanimoto(fp));
  });

  it('a continuous embedding (a centroid) finds what the centroid search finds', async () => {
    const fps = await fingerprintsOf(ref.set_a.smiles);
    const sorted = fps
      .map((f, i) => ({ f, i }))
      .sort((a, b) => popcountOf(a.f) - popcountOf(b.f) || a.i - b.i);
    const bytes = new Uint8Array(sorted.length * 256);
    sorted.forEach((x, r) => bytes.set(x.f, r * 256));
    const shard = readTestShard(
      shardBytes(
        bytes,
        sorted.map((x) => String(x.i)),
      ),
      0,
    );
    const members = fps.slice(0, 6);
    const byEmbedding = scanShardTopK(shard, embeddingQuery(centroidOf(members.map(bitsVector))), { k: 10 });
    const byCentroid = scanShardTopK(shard, prepareCentroid(members), { k: 10 });
    expect(byEmbedding.rows).toEqual(byCentroid.rows);
    expect(byEmbedding.scores).toEqual(byCentroid.scores);
    expect(byEmbedding.rows.length).toBe(10);
  });

  it('refuses embeddings of the wrong length, with non-finite entries, or all zero', () => {
    expectAnalysisError(() => embeddingQuery(new Array(100).fill(1)), 'dimension_mismatch', 'embedding');
    const nan = new Array(2048).fill(0);
    nan[3] = Number.NaN;
    expectAnalysisError(() => embeddingQuery(nan), 'invalid_embedding', 'embedding');
    expectAnalysisError(() => embeddingQuery(new Array(2048).fill(0)), 'invalid_embedding', 'embedding');
  });
});
