/**
 * Does the 3-conformer first pass of the catalog 3D stage cost search quality? The same drugs
 * (bench/shape/confs_prep.py) as a library embedded with 3 and with 10 conformers; queries are the
 * first 30 of them with 10 conformers (the service's query recipe); every library molecule scored
 * exactly (scoreShortlist, `alignShapes` defaults). Reports, per metric, the mean score difference
 * (10 − 3 conformers), the Spearman r of the two score lists and the overlap of their top 10.
 *
 *   .tools/chem3d/bin/python bench/shape/confs_prep.py catalogs/sources/chembl_drugs.smi.gz bench/out/shape/confs.json.gz 150
 *   node bench/shape/confs.ts bench/out/shape/confs.json.gz
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { scoreShortlist, type ConformerSet } from '../../engine/shape/index.ts';
import { spearman } from './stats.ts';

interface Rec {
  atoms: number;
  confs: number;
  elements: number[];
  charges: number[];
  coords: number[];
}
const { molecules } = JSON.parse(
  gunzipSync(readFileSync(process.argv[2] ?? 'bench/out/shape/confs.json.gz')).toString(),
) as {
  molecules: { smiles: string; c3: Rec; c10: Rec }[];
};
const set = (r: Rec): ConformerSet => ({
  atomCount: r.atoms,
  confCount: r.confs,
  elements: Uint8Array.from(r.elements),
  charges: Float32Array.from(r.charges),
  coords: Float32Array.from(r.coords),
});
const lib3 = molecules.map((m) => set(m.c3));
const lib10 = molecules.map((m) => set(m.c10));
const TOP = 10;
const acc = { shape: { diff: 0, rho: 0, overlap: 0 }, esp: { diff: 0, rho: 0, overlap: 0 } };
const queries = molecules.slice(0, 30);
const scores = (q: ConformerSet, lib: ConformerSet[]) => {
  const out = { shape: new Array<number>(lib.length), esp: new Array<number>(lib.length) };
  for (const h of scoreShortlist(q, lib, { metric: 'shape', k: lib.length }))
    [out.shape[h.index], out.esp[h.index]] = [h.shape, h.esp];
  return out;
};
const top = (a: number[]) =>
  new Set(
    a
      .map((v, i) => [v, i] as const)
      .sort((x, y) => y[0] - x[0] || x[1] - y[1])
      .slice(1, TOP + 1) // rank 0 is the query itself in both libraries
      .map(([, i]) => i),
  );
for (const [qi, m] of queries.entries()) {
  const q = set(m.c10);
  const [s3, s10] = [scores(q, lib3), scores(q, lib10)];
  for (const k of ['shape', 'esp'] as const) {
    acc[k].diff += s10[k].reduce((s, v, i) => s + v - s3[k][i], 0) / molecules.length;
    acc[k].rho += spearman(s10[k], s3[k]);
    const t10 = top(s10[k]);
    acc[k].overlap += [...top(s3[k])].filter((i) => t10.has(i)).length / TOP;
  }
  process.stderr.write(`query ${qi + 1}/${queries.length}\n`);
}
const n = queries.length;
const mean = (v: { diff: number; rho: number; overlap: number }) => ({
  mean_score_gain_10_vs_3: +(v.diff / n).toFixed(4),
  spearman: +(v.rho / n).toFixed(3),
  top10_overlap: +(v.overlap / n).toFixed(3),
});
console.log(
  JSON.stringify({
    library: molecules.length,
    queries: n,
    confs_kept: {
      three: lib3.reduce((s, m) => s + m.confCount, 0) / lib3.length,
      ten: lib10.reduce((s, m) => s + m.confCount, 0) / lib10.length,
    },
    shape: mean(acc.shape),
    esp: mean(acc.esp),
  }),
);
