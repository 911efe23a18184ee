// A threshold step after another (similarityTopK's ladder) proposes exactly what a fresh search at
// its threshold proposes, though it reads the ring-core cross bounds the earlier step computed
// (ring-cross.ts crossBounder's memo, loose ones among them) instead of computing them: on the
// AutoGrow4 ring sample (21 ring-closing reactions and the Wittig), against brute force by RDKit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { tanimoto } from '../../../engine/chem/fingerprint.ts';
import { assembleProduct } from '../../../engine/synthons/assemble.ts';
import { fpWords, popcountWords, type SlotTerms } from '../../../engine/synthons/bounds.ts';
import { clearRingSides, crossBounder } from '../../../engine/synthons/ring-cross.ts';
import { clearRingPairs } from '../../../engine/synthons/ring-zip.ts';
import { similaritySearch } from '../../../engine/synthons/similarity.ts';
import { reactionTuples, tupleSmiles, type OpenSpace } from '../../../engine/synthons/space.ts';
import { builtSpace, morganOf } from './support/spaces.ts';
import { RING_SAMPLE, writeAutogrow4Sample } from './ag4-sample.ts';

let root: string;
let rd: RDKitModule;
let space: OpenSpace;
const products: Array<{ fp: Uint8Array }> = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'steps-'));
  rd = await getRDKit();
  const file = join(root, 'ag4.txt');
  await writeAutogrow4Sample(file, RING_SAMPLE);
  clearRingPairs();
  clearRingSides();
  space = await builtSpace(root, file, 'ag4');
  space.reactions.forEach((_, r) => {
    for (const t of reactionTuples(space, r)) {
      const p = assembleProduct(rd, tupleSmiles(space, t), true);
      if (p?.fp) products.push({ fp: p.fp });
    }
  });
}, 900_000);
afterAll(async () => {
  clearRingPairs();
  clearRingSides();
  await rm(root, { recursive: true, force: true });
});

describe('a threshold step after another', () => {
  it('proposes what a fresh search at its threshold does, and finds every product above it', () => {
    let cutBefore = 0;
    for (const smiles of ['CC(=O)Oc1ccccc1C(=O)O', 'Cc1ccc2[nH]c(C)c(C)c2c1', 'O=C(O)c1ccc2ccccc2n1']) {
      const fp = morganOf(rd, smiles);
      const [hi, lo] = [0.55, 0.3];
      const terms = new Map<number, SlotTerms[]>();
      similaritySearch(rd, space, fp, { threshold: hi, terms });
      // Pairs whose cross bound the first step computed and that it cuts at the second's.
      const q = fpWords(fp);
      for (const [r, ts] of terms) {
        const cross = crossBounder(rd, space.reactions[r], q, popcountWords(q), ts);
        const [n0, n1] = space.reactions[r].slots.map((s) => s.synthonIds.length);
        if (!cross || n0 === undefined || n1 === undefined) continue;
        for (let i = 0; i < n0; i++)
          for (let j = 0; j < n1; j++) if ((cross.known(i, j) ?? 1) < lo) cutBefore++;
      }
      const second = similaritySearch(rd, space, fp, { threshold: lo, terms });
      const fresh = similaritySearch(rd, space, fp, { threshold: lo, terms: new Map() });
      expect(second.counts.screened).toBe(fresh.counts.screened);
      expect(second.counts.candidates).toBe(fresh.counts.candidates);
      const ids = (r: typeof fresh) => r.hits.map((h) => `${h.productId} ${h.similarity}`);
      expect(ids(second)).toEqual(ids(fresh));
      // Every product at or above the threshold, by RDKit.
      const above = products.filter((p) => tanimoto(fp, p.fp) >= lo).length;
      expect(second.hits.length).toBe(above);
    }
    expect(cutBefore).toBeGreaterThan(0);
  }, 600_000);
});
