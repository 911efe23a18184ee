import { beforeAll, describe, expect, it } from 'vitest';
import { getRDKit, type RDKitModule } from '../../../../engine/chem/rdkit.ts';
import { rowOf, type FingerprintSet } from '../../../../engine/analysis/fingerprints.ts';
import {
  embeddingsChunk,
  matrixChunk,
  nearestOfSmiles,
  nearestScores,
  parseChunk,
  shardQueries,
} from '../../../../engine/analysis/ops/job-chunks.ts';
import { embeddings } from '../../../../engine/analysis/ops/embed.ts';
import { popcountOf } from '../../../../engine/search/kernel-js.ts';
import { readTestShard, shardBytes, type TestShard } from '../../search/support/shards.ts';
import { ref, setOf } from '../support/reference.ts';

// The chunk steps of analysis jobs against RDKit's BulkTanimotoSimilarity (analysis fixture).
let rd: RDKitModule;
let drugs: FingerprintSet;
beforeAll(async () => {
  rd = await getRDKit();
  drugs = await setOf(ref.set_a.smiles);
});

function shardOf(rows: number[], index: number): { shard: TestShard; order: number[] } {
  const order = [...rows].sort((a, b) => popcountOf(drugs.fps, a) - popcountOf(drugs.fps, b) || a - b);
  const fps = new Uint8Array(order.length * 256);
  order.forEach((r, i) => fps.set(rowOf(drugs, r), i * 256));
  return { shard: readTestShard(shardBytes(fps, order.map(String)), index), order };
}
const range = (lo: number, hi: number) => Array.from({ length: hi - lo }, (_, i) => lo + i);

describe('analysis job chunks', () => {
  it("matrix rows equal RDKit's Tanimoto; unparsable rows and columns are NaN", () => {
    const rows = parseChunk(rd, [...ref.set_a.smiles.slice(0, 5), 'C1CC'], 'smiles_list_1');
    const cols = parseChunk(rd, ['C1CC', ...ref.set_a.smiles], 'smiles_list_2');
    const m = matrixChunk(rows, cols, 'morgan');
    const w = cols.canonical.length;
    expect(m.length).toBe(6 * w);
    for (let i = 0; i < 5; i++) {
      expect(m[i * w]).toBeNaN();
      for (let j = 0; j < ref.set_a.smiles.length; j++)
        expect(m[i * w + j + 1]).toBe(Math.fround(ref.similarity.values[i][j]));
    }
    expect(Array.from(m.subarray(5 * w)).every(Number.isNaN)).toBe(true);
  });

  it('nearest scores over several shards are the maximum of RDKit’s similarities to the database', () => {
    const shards = [shardOf(range(25, 90), 0).shard, shardOf(range(90, 150), 1).shard];
    const got = nearestOfSmiles(rd, [...ref.set_a.smiles.slice(0, 25), 'not-a-smiles'], shards);
    for (let q = 0; q < 25; q++)
      expect(got[q]).toBe(Math.fround(Math.max(...ref.similarity.values[q].slice(25))));
    expect(got[25]).toBeNaN();
    // a shard's own molecules as queries find themselves
    const self = nearestScores(shardQueries(shards[1]), shards);
    expect(Array.from(self).every((x) => x === 1)).toBe(true);
  });

  it('embedding chunks equal the synchronous embeddings, zero rows for unparsable input', () => {
    const smiles = [ref.set_a.smiles[0], 'C1CC', ref.set_a.smiles[1]];
    const chunk = embeddingsChunk(rd, smiles, 'counts');
    const sync = embeddings(rd, smiles, 'morgan', 'counts', 'dense');
    expect(Array.from(chunk.values.subarray(0, 2048))).toEqual(sync.embeddings[0]);
    expect(Array.from(chunk.values.subarray(2048, 4096)).every((x) => x === 0)).toBe(true);
    expect(Array.from(chunk.values.subarray(4096))).toEqual(sync.embeddings[2]);
    expect(chunk.errors[1]).toBeTruthy();
    expect(chunk.canonical[0]).toBe(sync.canonical_smiles[0]);
  });
});
