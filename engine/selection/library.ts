/**
 * The view of one enumerated catalog release that selections, v2 sync search, sampling and
 * substructure need: row-addressed columns plus a k-nearest-neighbours query. Implemented in
 * memory here (createMemoryLibrary, used by tests and small catalogs) and over the catalog shards
 * and the search pool by the API's catalog adapter.
 */
import { createTopKHeap } from '../search/topk.ts';
import { DESCRIPTOR_NAMES, getRDKit, parseMolecule } from '../chem/index.ts';
import { ENGINE_PROPERTY_IDS } from './property-ids.ts';
import type { LibraryFacts } from './spec.ts';

export interface LibraryInfo {
  database_id: string;
  name: string;
  vendor: string;
  website: string;
  contact: string;
  release: string;
  kind: 'enumerated' | 'synthon';
  product_count: number;
  /** Predicted (ADMET) property ids served with the catalog; empty until that capability lands. */
  predicted_property_ids: string[];
}

export interface KnnResult {
  rows: Int32Array;
  scores: Float32Array;
}

/**
 * How to open a library again in another thread (structured-clone plain data): a catalog by its
 * directory, or an in-memory library by its molecules (parsed records are taken as they are;
 * bare {id, smiles} pairs are parsed with RDKit).
 */
export type LibrarySource =
  | { kind: 'catalog'; dir: string }
  | {
      kind: 'memory';
      info: Omit<LibraryInfo, 'product_count'>;
      molecules: ({ id: string; smiles: string } | MoleculeRecord)[];
    };

export interface Library {
  readonly info: LibraryInfo;
  /** Where this library can be reopened by a selection thread (absent: only in this thread). */
  readonly source?: LibrarySource;
  readonly size: number;
  productId(row: number): string;
  smiles(row: number): string;
  /** Bemis-Murcko scaffold SMILES ('' for acyclic molecules). */
  scaffold(row: number): string;
  /** Packed Morgan r=2 2048-bit fingerprint of the row (a view, do not modify). */
  fingerprint(row: number): Uint8Array;
  /** List price as a positive integer, or null when the catalog has none (never 0). */
  price(row: number): number | null;
  /** Values of a descriptor or predicted property, NaN where missing; undefined for unknown ids. */
  column(propertyId: string): Float64Array | undefined;
  /**
   * The k best rows by Tanimoto to `query`, best first (score desc, row asc); `mask[row]` = 0
   * excludes. `limits` (a request's deadline, its client going away) stop a pool scan early.
   */
  knn(
    query: Uint8Array,
    k: number,
    mask?: Uint8Array,
    limits?: { deadline?: number; signal?: AbortSignal },
  ): Promise<KnnResult>;
}

/** What normalization needs from a library. */
export function libraryFacts(lib: Library): LibraryFacts {
  return {
    database_id: lib.info.database_id,
    release: lib.info.release,
    kind: lib.info.kind,
    property_ids: [...ENGINE_PROPERTY_IDS, ...lib.info.predicted_property_ids],
  };
}

const POP8 = Uint8Array.from({ length: 256 }, (_, i) => {
  let n = 0;
  for (let v = i; v; v &= v - 1) n++;
  return n;
});

/**
 * Exact top-k Tanimoto over packed fingerprints (`fps`: n rows of 256 bytes), skipping rows whose
 * mask byte is 0. Pure and synchronous; f32 scores like the engine's kernels.
 */
export function bruteForceKnn(
  fps: Uint8Array,
  popcounts: Uint16Array,
  query: Uint8Array,
  k: number,
  mask?: Uint8Array,
): KnnResult {
  const heap = createTopKHeap(k);
  let a = 0;
  for (let i = 0; i < 256; i++) a += POP8[query[i]];
  const n = popcounts.length;
  for (let row = 0; row < n; row++) {
    if (mask && !mask[row]) continue;
    const b = popcounts[row];
    const bound = Math.min(a, b) / Math.max(a, b, 1);
    if (bound < heap.floor()) continue;
    let c = 0;
    const o = row * 256;
    for (let i = 0; i < 256; i++) c += POP8[query[i] & fps[o + i]];
    const d = a + b - c;
    heap.push(row, d === 0 ? 0 : Math.fround(c / d));
  }
  return heap.finish();
}

/** One molecule as stored by an in-memory library. */
export interface MoleculeRecord {
  id: string;
  smiles: string;
  scaffold: string;
  fp: Uint8Array;
  descriptors: number[];
  /** List price (a positive integer), absent or null when unpriced. */
  price?: number | null;
}

/** Parses molecules with RDKit into records (unparsable ones are skipped). */
export async function parseMoleculeRecords(
  molecules: { id: string; smiles: string }[],
): Promise<MoleculeRecord[]> {
  const rd = await getRDKit();
  const out: MoleculeRecord[] = [];
  for (const m of molecules) {
    const p = parseMolecule(rd, m.smiles);
    if ('error' in p) continue;
    out.push({
      id: m.id,
      smiles: p.canonicalSmiles,
      scaffold: p.scaffold,
      fp: p.fp,
      descriptors: DESCRIPTOR_NAMES.map((n) => p.descriptors[n]),
    });
  }
  return out;
}

/** Builds an in-memory library from molecules (parsed with RDKit; unparsable ones are skipped). */
export async function createMemoryLibrary(
  info: Omit<LibraryInfo, 'product_count'>,
  molecules: { id: string; smiles: string }[],
): Promise<Library> {
  return libraryFromRecords(info, await parseMoleculeRecords(molecules));
}

/** An in-memory library over parsed records (descriptors in DESCRIPTOR_NAMES order). */
export function libraryFromRecords(
  info: Omit<LibraryInfo, 'product_count'>,
  records: MoleculeRecord[],
): Library {
  const n = records.length;
  const fps = new Uint8Array(n * 256);
  const popcounts = new Uint16Array(n);
  records.forEach((r, i) => {
    fps.set(r.fp, i * 256);
    let c = 0;
    for (let j = 0; j < 256; j++) c += POP8[r.fp[j]];
    popcounts[i] = c;
  });
  const columns = new Map<string, Float64Array>(
    DESCRIPTOR_NAMES.map((name, j) => [name, Float64Array.from(records, (d) => d.descriptors[j])]),
  );
  return {
    info: { ...info, product_count: n },
    source: { kind: 'memory', info, molecules: records },
    size: n,
    productId: (row) => records[row].id,
    smiles: (row) => records[row].smiles,
    scaffold: (row) => records[row].scaffold,
    fingerprint: (row) => fps.subarray(row * 256, row * 256 + 256),
    price: (row) => records[row].price ?? null,
    column: (id) => columns.get(id),
    knn: async (query, k, mask) => bruteForceKnn(fps, popcounts, query, k, mask),
  };
}
