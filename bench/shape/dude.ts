/**
 * DUD-E virtual screening on the 20 targets of the shared data: per target, its first sampled
 * active as the query, a seeded sample of actives and decoys as the library (bench/shape/dude_prep.py
 * embeds them; decoy subset stated in the output), ranked by `morgan` (Tanimoto, radius 2, 2048
 * bits), `espsim_shape` and `espsim_electrostatic` (the service's exact stage: scoreShortlist,
 * `alignShapes` defaults). EF at 1 % and 5 % and AUROC per target, and their means.
 *
 *   .tools/chem3d/bin/python bench/shape/dude_prep.py /work/shared/data/vs_benchmarks/dude_subset20 bench/out/shape/dude.json.gz 10 90
 *   node bench/shape/dude.ts bench/out/shape/dude.json.gz
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { scoreShortlist, type ConformerSet } from '../../engine/shape/index.ts';

interface Rec {
  active: boolean;
  atoms: number;
  confs: number;
  elements: number[];
  charges: number[];
  coords: number[];
  on_bits: number[];
}
const path = process.argv[2] ?? 'bench/out/shape/dude.json.gz';
const data = JSON.parse(gunzipSync(readFileSync(path)).toString()) as {
  meta: Record<string, number>;
  targets: Record<string, { query: Rec; library: Rec[]; actives_total: number; decoys_total: number }>;
};
const set = (r: Rec): ConformerSet => ({
  atomCount: r.atoms,
  confCount: r.confs,
  elements: Uint8Array.from(r.elements),
  charges: Float32Array.from(r.charges),
  coords: Float32Array.from(r.coords),
});
const tanimoto = (a: number[], b: Set<number>) => {
  const c = a.filter((x) => b.has(x)).length;
  return c / (a.length + b.size - c);
};

/** AUROC with ties counted half (Mann–Whitney). */
function auroc(scores: number[], active: boolean[]): number {
  let pairs = 0;
  let wins = 0;
  scores.forEach((sa, i) => {
    if (!active[i]) return;
    scores.forEach((sd, j) => {
      if (active[j]) return;
      pairs++;
      wins += sa > sd ? 1 : sa === sd ? 0.5 : 0;
    });
  });
  return wins / pairs;
}

/** Enrichment factor at `frac` of the ranked library (at least one molecule). */
function ef(scores: number[], active: boolean[], frac: number): number {
  const n = Math.max(1, Math.round(scores.length * frac));
  const order = scores.map((s, i) => [s, i] as const).sort((x, y) => y[0] - x[0] || x[1] - y[1]);
  const found = order.slice(0, n).filter(([, i]) => active[i]).length;
  const total = active.filter(Boolean).length;
  return found / n / (total / scores.length);
}

const methods = ['morgan', 'espsim_shape', 'espsim_electrostatic'] as const;
const rows: Record<string, Record<string, number>> = {};
const t0 = performance.now();
for (const [target, t] of Object.entries(data.targets)) {
  const active = t.library.map((r) => r.active);
  const qBits = new Set(t.query.on_bits);
  const scored = scoreShortlist(set(t.query), t.library.map(set), { metric: 'shape', k: t.library.length });
  const shape = new Array<number>(t.library.length);
  const esp = new Array<number>(t.library.length);
  for (const h of scored) [shape[h.index], esp[h.index]] = [h.shape, h.esp];
  const scores = {
    morgan: t.library.map((r) => tanimoto(r.on_bits, qBits)),
    espsim_shape: shape,
    espsim_electrostatic: esp,
  };
  rows[target] = { library: t.library.length, actives: active.filter(Boolean).length };
  for (const m of methods) {
    rows[target][`${m}_ef1`] = ef(scores[m], active, 0.01);
    rows[target][`${m}_ef5`] = ef(scores[m], active, 0.05);
    rows[target][`${m}_auroc`] = auroc(scores[m], active);
  }
  process.stderr.write(`${target} done (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
}
const mean: Record<string, number> = {};
for (const k of Object.keys(Object.values(rows)[0]))
  mean[k] = Object.values(rows).reduce((s, r) => s + r[k], 0) / Object.keys(rows).length;
console.log(JSON.stringify({ meta: data.meta, mean, targets: rows }, null, 1));
