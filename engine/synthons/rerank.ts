/**
 * Morgan reranking over a space (v2 `search_cheese` with scorer `morgan`): the shortlist is proposed
 * from synthon-level scores (the bound walk of similarity.ts), assembled and scored exactly; then
 * the SMARTS prefilter (include or exclude) is applied to the assembled products, products reached
 * through two tuples are kept once, and the best `limit` are returned. The shortlist is exact (the
 * top `shortlist` products of the space), so the returned hits are the brute-force top hits among
 * the products that pass the prefilter within that shortlist.
 */
import type { RDKitModule, RDKitMol } from '../chem/rdkit.ts';
import type { SpaceHit } from './similarity.ts';
import { similarityTopK } from './similarity-topk.ts';
import type { OpenSpace } from './space.ts';

export interface Prefilter {
  smarts: string;
  mode: 'include' | 'exclude';
}

export interface RerankOptions {
  limit: number;
  shortlist: number;
  timeoutMs?: number;
  prefilter?: Prefilter;
}

export interface RerankResult {
  hits: SpaceHit[];
  counts: {
    proposed: number;
    assembled: number;
    invalid: number;
    duplicate_products: number;
    duplicate_tuples: number;
    prefiltered: number;
    returned: number;
  };
  /** The similarity floor the shortlist walk reached. */
  threshold: number;
  timedOut: boolean;
  timingMs: { proposal: number; assembly_and_scoring: number; prefilter: number };
}

export function rerankMorgan(
  rd: RDKitModule,
  space: OpenSpace,
  queryFp: Uint8Array,
  opts: RerankOptions,
): RerankResult {
  const r = similarityTopK(rd, space, queryFp, opts.shortlist, { timeoutMs: opts.timeoutMs });
  const t0 = performance.now();
  let pattern: RDKitMol | null = null;
  if (opts.prefilter) {
    pattern = rd.get_qmol(opts.prefilter.smarts);
    if (!pattern?.is_valid()) throw new Error(`prefilter SMARTS did not parse: ${opts.prefilter.smarts}`);
  }
  const tuples = new Set<string>();
  const products = new Set<string>();
  let duplicateTuples = 0;
  let duplicateProducts = 0;
  let prefiltered = 0;
  const hits: SpaceHit[] = [];
  try {
    for (const h of r.hits) {
      if (tuples.has(h.productId)) {
        duplicateTuples++;
        continue;
      }
      tuples.add(h.productId);
      if (products.has(h.smiles)) {
        duplicateProducts++;
        continue;
      }
      products.add(h.smiles);
      if (pattern && !passes(rd, pattern, h.smiles, opts.prefilter!.mode)) {
        prefiltered++;
        continue;
      }
      if (hits.length < opts.limit) hits.push(h);
    }
  } finally {
    pattern?.delete();
  }
  return {
    hits,
    counts: {
      proposed: r.counts.candidates,
      assembled: r.counts.assembled,
      invalid: r.counts.invalid,
      duplicate_products: duplicateProducts,
      duplicate_tuples: duplicateTuples,
      prefiltered,
      returned: hits.length,
    },
    threshold: r.threshold,
    timedOut: r.timedOut,
    timingMs: {
      proposal: r.timingMs.proposal,
      assembly_and_scoring: r.timingMs.assembly,
      prefilter: performance.now() - t0,
    },
  };
}

/** Whether a product passes an include (must match) or exclude (must not match) prefilter. */
export function passes(rd: RDKitModule, pattern: RDKitMol, smiles: string, mode: Prefilter['mode']): boolean {
  const mol = rd.get_mol(smiles);
  try {
    const hit =
      !!mol?.is_valid() &&
      (JSON.parse(mol.get_substruct_match(pattern)) as { atoms?: number[] }).atoms?.length;
    return mode === 'include' ? !!hit : !hit;
  } finally {
    mol?.delete();
  }
}
