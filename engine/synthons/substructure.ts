/**
 * Substructure search over a space by a bounded scan: tuples whose heavy-atom count can hold the
 * query are assembled (RDKit molzip) and matched against the whole query (SMARTS or SMILES), so the
 * result equals brute force over the enumeration for every tuple the scan reaches. `maxProducts`
 * and `timeoutMs` bound it; `timedOut` then says the scan did not cover the space (`examined`,
 * `coverage`). The fragment-and-match design of RDKit's SynthonSpaceSearch, which would not need
 * to assemble non-matching tuples, is not built yet.
 */
import { DomainError } from '../../platform/errors.ts';
import type { RDKitModule, RDKitMol } from '../chem/rdkit.ts';
import { assembleWith } from './assemble.ts';
import { reactionTuples, tupleId, tupleSmiles, type OpenSpace } from './space.ts';

export interface SubstructureOptions {
  maxHits?: number;
  maxProducts?: number;
  timeoutMs?: number;
}

export interface SubstructureHit {
  productId: string;
  smiles: string;
  reactionId: string;
  matchedAtoms: number[];
  matchedBonds: number[];
}

export interface SubstructureResult {
  hits: SubstructureHit[];
  examined: number;
  invalid: number;
  /** Products examined / products in the space. */
  coverage: number;
  timedOut: boolean;
}

/** Parses the query as SMARTS, then as SMILES; a 422-style validation error names `field`. */
export function parseQuery(rd: RDKitModule, query: string, field = 'query'): RDKitMol {
  let q: RDKitMol | null = null;
  try {
    q = rd.get_qmol(query);
  } catch {
    q = null;
  }
  if (!q?.is_valid()) {
    q?.delete();
    q = rd.get_mol(query);
  }
  if (!q?.is_valid()) {
    q?.delete();
    throw new DomainError('validation_error', `${field}: not a valid SMARTS or SMILES`, {
      issues: [{ loc: ['body', field], msg: 'not a valid SMARTS or SMILES', type: 'value_error' }],
    });
  }
  return q;
}

export function substructureSearch(
  rd: RDKitModule,
  space: OpenSpace,
  query: string,
  opts: SubstructureOptions = {},
): SubstructureResult {
  const maxHits = opts.maxHits ?? 1000;
  const maxProducts = opts.maxProducts ?? 200_000;
  const deadline = performance.now() + (opts.timeoutMs ?? Infinity);
  const q = parseQuery(rd, query);
  const qAtoms = q.get_num_atoms();
  const hits: SubstructureHit[] = [];
  let examined = 0;
  let invalid = 0;
  let timedOut = false;
  try {
    outer: for (let r = 0; r < space.reactions.length; r++) {
      const slots = space.reactions[r].slots;
      for (const t of reactionTuples(space, r)) {
        const heavy = t.synthons.reduce((n, i, s) => n + slots[s].heavyAtoms[i], 0);
        examined++;
        if (heavy < qAtoms) continue;
        if (examined > maxProducts || (examined % 256 === 0 && performance.now() > deadline)) {
          timedOut = true;
          break outer;
        }
        const m = assembleWith(rd, tupleSmiles(space, t), (mol, smiles) => ({
          smiles,
          match: JSON.parse(mol.get_substruct_match(q)) as { atoms?: number[]; bonds?: number[] },
        }));
        if (!m) {
          invalid++;
          continue;
        }
        if (!m.match.atoms?.length) continue;
        hits.push({
          productId: tupleId(space, t),
          smiles: m.smiles,
          reactionId: space.reactions[r].info.id,
          matchedAtoms: m.match.atoms,
          matchedBonds: m.match.bonds ?? [],
        });
        if (hits.length >= maxHits) break outer;
      }
    }
  } finally {
    q.delete();
  }
  const total = space.manifest.counts.products;
  return { hits, examined, invalid, coverage: total ? Math.min(1, examined / total) : 1, timedOut };
}
