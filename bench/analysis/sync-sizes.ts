/**
 * Sizing check for the synchronous limits of engine/analysis/limits.ts (no peer: it answers "how
 * long does one call at the limit keep an engine thread busy?"). Molecules: the bundled ZINC15
 * sample. One thread, one run each after RDKit is loaded.
 *
 *   source scripts/env.sh && node bench/analysis/sync-sizes.ts
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { getRDKit } from '../../engine/chem/rdkit.ts';
import * as A from '../../engine/analysis/index.ts';

const L = A.ANALYSIS_LIMITS;
const rd = await getRDKit();
const smiles = gunzipSync(readFileSync('catalogs/sources/zinc15_sample.tsv.gz'))
  .toString()
  .split('\n')
  .slice(1, L.syncPcaMolecules + 1)
  .map((l) => l.split('\t')[0]);
const time = <T>(name: string, f: () => T): T => {
  const s = performance.now();
  const r = f();
  console.log(`${name.padEnd(44)} ${((performance.now() - s) / 1000).toFixed(2)} s`);
  return r;
};
const vectorOf = (e: A.EmbeddedMolecule): Float32Array => (e as { vector: Float32Array }).vector;
const fpOf = (e: A.EmbeddedMolecule): Uint8Array => (e as { fp: Uint8Array }).fp;

const bits = time(`embeddings, bits, ${smiles.length}`, () =>
  A.embedMorganList(rd, smiles, 'bits', smiles.length),
);
time(`embeddings, counts, ${L.syncMolecules}`, () =>
  A.embedMorganList(rd, smiles.slice(0, L.syncMolecules), 'counts'),
);
const fps = A.fingerprintSet(bits.map(fpOf));
const side = Math.floor(Math.sqrt(L.syncMatrixCells));
time(`similarity matrix ${side} × ${side}`, () =>
  A.similarityMatrix(A.MORGAN_TANIMOTO, A.sliceSet(fps, 0, side), A.sliceSet(fps, 0, side)),
);
const nc = L.syncClusterMolecules;
const cset = A.sliceSet(fps, 0, nc);
time(`Butina ${nc}, threshold 0.4`, () => A.butina(cset, 0.4));
const rows = { n: nc, d: 2048, values: new Float64Array(nc * 2048) };
bits.slice(0, nc).forEach((b, i) => rows.values.set(vectorOf(b), i * 2048));
time(`k-means ${nc} × 2048, k = 8`, () => A.kmeans(rows, 8, { seed: 0 }));
time(`k-medoids ${nc} (Tanimoto), k = 8, distances included`, () => {
  const sim = A.similarityMatrix(A.MORGAN_TANIMOTO, cset, cset).values;
  return A.kmedoids({ n: nc, values: sim.map((s) => 1 - s) }, 8, { seed: 0 });
});
time(`PCA ${fps.n} fingerprints`, () => A.pca(A.sparseFromFingerprints(fps)));
time(`UMAP ${L.syncUmapMolecules} fingerprints`, () =>
  A.umap2d({ fps: A.sliceSet(fps, 0, L.syncUmapMolecules) }),
);
time(`t-SNE ${L.syncTsneMolecules} fingerprints (exact, 1,000 iterations)`, () =>
  A.tsne2d({ fps: A.sliceSet(fps, 0, L.syncTsneMolecules) }),
);
