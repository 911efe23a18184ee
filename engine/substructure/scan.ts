/**
 * Substructure scan over an enumerated library's SMILES with a per-library index built lazily,
 * row by row, during scans: a pickled molecule (5× faster to load than SMILES) and RDKit's pattern
 * fingerprint, which prefilters rows (a row can only match when its pattern bits cover the
 * query's). Runs on a worker thread in slices: a slice scans from a row until a time bound (epoch
 * ms, checked after every row) and says where the next slice starts, so the runner can interleave
 * slices of several requests on few threads.
 */
import type { RDKitModule, RDKitMol } from '../chem/index.ts';

export interface SubstructureIndex {
  smiles: string[];
  pickles: (Uint8Array | null | undefined)[];
  patterns: (Uint8Array | null | undefined)[];
  /**
   * Memory the indexes of one thread may hold, shared by its libraries: past `max`, rows are
   * no longer indexed (they are parsed from SMILES on every scan), so memory stays bounded.
   */
  budget: IndexBudget;
}

export interface IndexBudget {
  used: number;
  max: number;
}

export interface SubstructureHit {
  row: number;
  atoms: number[];
  bonds: number[];
}

export interface SubstructureScanResult {
  hits: SubstructureHit[];
  /** Rows examined (prefiltered or matched) before the limit, the end or the deadline. */
  scanned: number;
  prefiltered: number;
  invalid: number;
  timedOut: boolean;
}

/** One slice of a scan: what it found, where the next slice starts, and whether the scan is over. */
export interface SubstructureSlice extends SubstructureScanResult {
  nextRow: number;
  /** The last row was scanned or `limit` hits were found. */
  done: boolean;
}

export function createIndex(
  smiles: string[],
  budget: IndexBudget = { used: 0, max: Infinity },
): SubstructureIndex {
  return { smiles, pickles: new Array(smiles.length), patterns: new Array(smiles.length), budget };
}

/** Bytes of an index's cached rows (what `budget.used` counts for it). */
export function indexBytes(index: SubstructureIndex): number {
  let n = 0;
  for (let i = 0; i < index.smiles.length; i++)
    n += (index.pickles[i]?.byteLength ?? 0) + (index.patterns[i]?.byteLength ?? 0);
  return n;
}

/** Parses a SMARTS (or SMILES) query; null when RDKit cannot. */
export function parseQuery(rd: RDKitModule, format: 'smarts' | 'smiles', value: string): RDKitMol | null {
  let q: RDKitMol | null = null;
  try {
    q = format === 'smarts' ? rd.get_qmol(value) : rd.get_mol(value);
  } catch {
    q = null;
  }
  if (q && !q.is_valid()) {
    q.delete();
    return null;
  }
  return q;
}

/** True when RDKit parses the query (the parsed molecule is freed at once). */
export function isValidQuery(rd: RDKitModule, format: 'smarts' | 'smiles', value: string): boolean {
  const q = parseQuery(rd, format, value);
  q?.delete();
  return q !== null;
}

const covers = (row: Uint8Array, query: Uint8Array): boolean => {
  for (let i = 0; i < query.length; i++) if ((row[i] & query[i]) !== query[i]) return false;
  return true;
};

/**
 * Scans rows from `from` in order until `limit` hits, the end, or `until` (Date.now() ms, checked
 * after every row: one row's match is the unit that cannot be interrupted). A slice scans at least
 * one row (so a scan progresses however late its slice arrives) unless `deadline` has passed.
 */
export function scanSubstructure(
  rd: RDKitModule,
  index: SubstructureIndex,
  query: RDKitMol,
  limit: number,
  until: number,
  from = 0,
  deadline = until,
): SubstructureSlice {
  const qfp = query.get_pattern_fp_as_uint8array() as Uint8Array;
  const hits: SubstructureHit[] = [];
  let scanned = 0,
    prefiltered = 0,
    invalid = 0;
  const n = index.smiles.length;
  let row = from;
  const result = (timedOut: boolean): SubstructureSlice => ({
    hits,
    scanned,
    prefiltered,
    invalid,
    timedOut,
    nextRow: row,
    done: row >= n || hits.length >= limit,
  });
  for (; row < n && hits.length < limit; row++) {
    const now = Date.now();
    if (now > deadline || (scanned > 0 && now > until)) return result(true);
    scanned++;
    const pattern = index.patterns[row];
    if (pattern === null) {
      invalid++;
      continue;
    }
    if (pattern && !covers(pattern, qfp)) {
      prefiltered++;
      continue;
    }
    let mol: RDKitMol | null = null;
    try {
      const pkl = index.pickles[row];
      mol = pkl ? rd.get_mol_from_uint8array(pkl) : rd.get_mol(index.smiles[row]);
      if (!mol || !mol.is_valid()) {
        index.patterns[row] = null;
        invalid++;
        continue;
      }
      if (!pkl) {
        const p = new Uint8Array(mol.get_pattern_fp_as_uint8array() as Uint8Array);
        const b = index.budget;
        if (b.used < b.max) {
          const pickle = new Uint8Array(mol.get_as_uint8array() as Uint8Array);
          index.pickles[row] = pickle;
          index.patterns[row] = p;
          b.used += pickle.byteLength + p.byteLength;
        }
        if (!covers(p, qfp)) {
          prefiltered++;
          continue;
        }
      }
      const m = JSON.parse(mol.get_substruct_match(query)) as { atoms?: number[]; bonds?: number[] };
      if (m.atoms && m.atoms.length) hits.push({ row, atoms: m.atoms, bonds: m.bonds ?? [] });
    } catch {
      invalid++;
    } finally {
      mol?.delete();
    }
  }
  return result(false);
}
