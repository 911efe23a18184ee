/**
 * One virtual-screening target scored the way both DUD-E benchmarks (dude.ts, dude-full.ts) score
 * it: every query against every library molecule by `morgan` (Tanimoto over the prep's on-bits,
 * radius 2, 2,048 bits), `espsim_shape` and `espsim_electrostatic` (the service's exact stage:
 * scoreShortlist, `alignShapes` defaults, on the shape pool's `bulk` lane). Per method the mean
 * over the queries of EF1%, EF5%, ROCE1% and AUROC, and the MAX fusion figures (a library
 * molecule's best score over the queries).
 */
import type { ConformerSet } from '../../engine/shape/index.ts';
import type { ShapePool } from '../../engine/shape/pool.ts';
import { auroc, ef, roce } from './vs-metrics.ts';

/** A molecule as the prep scripts write it: conformers, charges and Morgan on-bits. */
export interface VsRecord {
  atoms: number;
  confs: number;
  elements: number[];
  charges: number[];
  coords: number[];
  on_bits: number[];
}

export const VS_METHODS = ['morgan', 'espsim_shape', 'espsim_electrostatic'] as const;
export type VsMethod = (typeof VS_METHODS)[number];

export interface VsScreen {
  /** Means over the queries (divided per query as it is added, the order both scripts used). */
  perQuery: Record<VsMethod, { ef1: number; ef5: number; roce1: number; auroc: number }>;
  /** MAX group fusion over the queries. */
  max: Record<VsMethod, { ef1: number; roce1: number; auroc: number }>;
}

export const conformerSet = (r: VsRecord): ConformerSet => ({
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

export async function screenTarget(
  pool: ShapePool,
  queries: readonly VsRecord[],
  library: readonly VsRecord[],
  active: readonly boolean[],
): Promise<VsScreen> {
  const lib = library.map(conformerSet);
  const fused = Object.fromEntries(VS_METHODS.map((m) => [m, new Array<number>(lib.length).fill(-Infinity)]));
  const perQuery = Object.fromEntries(
    VS_METHODS.map((m) => [m, { ef1: 0, ef5: 0, roce1: 0, auroc: 0 }]),
  ) as VsScreen['perQuery'];
  for (const q of queries) {
    const qBits = new Set(q.on_bits);
    const scored = await pool.scoreShortlist(
      conformerSet(q),
      lib,
      { metric: 'shape', k: lib.length },
      { lane: 'bulk' },
    );
    const shape = new Array<number>(lib.length);
    const esp = new Array<number>(lib.length);
    for (const h of scored) [shape[h.index], esp[h.index]] = [h.shape, h.esp];
    const scores = {
      morgan: library.map((r) => tanimoto(r.on_bits, qBits)),
      espsim_shape: shape,
      espsim_electrostatic: esp,
    };
    for (const m of VS_METHODS) {
      scores[m].forEach((v, i) => (fused[m][i] = Math.max(fused[m][i], v)));
      perQuery[m].ef1 += ef(scores[m], active, 0.01) / queries.length;
      perQuery[m].ef5 += ef(scores[m], active, 0.05) / queries.length;
      perQuery[m].roce1 += roce(scores[m], active, 0.01) / queries.length;
      perQuery[m].auroc += auroc(scores[m], active) / queries.length;
    }
  }
  const max = Object.fromEntries(
    VS_METHODS.map((m) => [
      m,
      {
        ef1: ef(fused[m], active, 0.01),
        roce1: roce(fused[m], active, 0.01),
        auroc: auroc(fused[m], active),
      },
    ]),
  ) as VsScreen['max'];
  return { perQuery, max };
}
