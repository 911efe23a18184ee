/**
 * PAINS (pan-assay interference compounds, Baell & Holloway 2010) as RDKit ships them: the 480
 * SMARTS of RDKit's Data/Pains/wehi_pains.csv, copied into engine/filters/data (see its README).
 * The SMARTS spell hydrogens as explicit [#1] atoms; like RDKit's FilterCatalog, they are
 * compiled with the hydrogens merged into their neighbours' H-count queries (MinimalLib's
 * `get_qmol` has no mergeHs option, so the query goes through RDKit JSON and `get_mol` with
 * `mergeQueryHs`). A molecule passes the PAINS filter when it matches none of them.
 */
import { readFileSync } from 'node:fs';
import type { RDKitModule, RDKitMol } from '../chem/index.ts';
import { hasMatch } from './qed.ts';

export const PAINS_CSV_URL = new URL('./data/wehi_pains.csv', import.meta.url);

export interface PainsPattern {
  /** The regId of the csv, e.g. `anil_di_alk_F(14)`. */
  name: string;
  smarts: string;
}

/** Reads the 480 PAINS patterns from the repo's copy of the csv. Throws if a line is malformed. */
export function loadPainsPatterns(url: URL = PAINS_CSV_URL): PainsPattern[] {
  const out: PainsPattern[] = [];
  for (const line of readFileSync(url, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const m = /^"(.+)","<regId=(.+)>"\s*$/.exec(line);
    if (!m) throw new Error(`malformed PAINS line: ${line}`);
    out.push({ smarts: m[1], name: m[2] });
  }
  return out;
}

/** Compiled PAINS queries; long-lived (one set per thread), freed by `delete()`. */
export interface PainsMatcher {
  readonly size: number;
  /** Names of the patterns that match, in csv order (empty: the molecule passes). */
  matches(mol: RDKitMol): string[];
  /** True when any pattern matches (stops at the first). */
  any(mol: RDKitMol): boolean;
  delete(): void;
}

/** SMARTS compiled as RDKit's `MolFromSmarts(smarts, mergeHs=True)`. Throws if RDKit rejects it. */
export function compileMergedHsQuery(rd: RDKitModule, smarts: string): RDKitMol {
  const raw = rd.get_qmol(smarts);
  if (!raw || !raw.is_valid()) throw new Error(`RDKit rejected SMARTS ${smarts}`);
  try {
    const merged = rd.get_mol(raw.get_json(), JSON.stringify({ mergeQueryHs: true, sanitize: false }));
    if (!merged || !merged.is_valid()) throw new Error(`could not merge hydrogens of SMARTS ${smarts}`);
    return merged;
  } finally {
    raw.delete();
  }
}

/** Compiles the PAINS patterns once per thread. */
export function compilePains(rd: RDKitModule, patterns: PainsPattern[] = loadPainsPatterns()): PainsMatcher {
  const queries = patterns.map((p) => compileMergedHsQuery(rd, p.smarts));
  return {
    size: queries.length,
    matches(mol) {
      const names: string[] = [];
      queries.forEach((q, i) => {
        if (hasMatch(mol, q)) names.push(patterns[i].name);
      });
      return names;
    },
    any(mol) {
      return queries.some((q) => hasMatch(mol, q));
    },
    delete() {
      for (const q of queries) q.delete();
    },
  };
}
