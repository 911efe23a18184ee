/**
 * Libraries over a built catalog (engine/catalog), rows numbered across shards in manifest order.
 *  - openCatalogLibrary (the API thread): shards read once, fingerprints copied into one block;
 *    masked k-NN is a JS scan, unmasked k-NN goes to the search pool when one is given.
 *  - openScanLibrary (selection threads): shards loaded into WebAssembly kernel memory and scanned
 *    in place by the search kernel, masked or not; strings are read from the shard on demand.
 */
import { readFile } from 'node:fs/promises';
import { readShard, type Catalog, type CatalogManifest, type ShardData } from '../catalog/reader.ts';
import { ADMET_NAMES } from '../catalog/schema.ts';
import { DESCRIPTOR_NAMES } from '../chem/index.ts';
import { loadShardForScan, scanShardTopK } from '../search/shard-memory.ts';
import { prepareTanimoto } from '../search/query.ts';
import { mergeHits, type Hit } from '../search/topk.ts';
import { bruteForceKnn, type KnnResult, type Library, type LibraryInfo } from './library.ts';

/** The part of the search pool this adapter uses (engine/search createSearchPool). */
export interface PoolKnn {
  knn(req: {
    catalogs: string[];
    query: Uint8Array;
    k: number;
    deadline?: number;
    signal?: AbortSignal;
  }): Promise<{ shard: number; row: number; similarity: number }[]>;
}

/** Arrow's column values row by row (null where the column is absent). */
function column(shard: ShardData, name: string): (number | string | null)[] {
  const col = shard.table.getChild(name);
  if (!col) return new Array(shard.rows).fill(null);
  const out = new Array<number | string | null>(shard.rows);
  for (let i = 0; i < shard.rows; i++) out[i] = col.get(i) as number | string | null;
  return out;
}

const rowCount = (m: CatalogManifest) => m.shards.reduce((s, x) => s + x.rows, 0);
const hasPredictions = (m: CatalogManifest) => m.models !== null && m.models !== undefined;
const propertyNames = (m: CatalogManifest) => [
  ...DESCRIPTOR_NAMES,
  ...(hasPredictions(m) ? ADMET_NAMES : []),
];
const listPrice = (v: number) => (v > 0 ? Math.max(1, Math.round(v)) : null);

/** What a library of catalog `m` says about itself (its whole row count). */
export const catalogLibraryInfo = (m: CatalogManifest): LibraryInfo => infoOf(m, rowCount(m));

function infoOf(m: CatalogManifest, n: number): LibraryInfo {
  return {
    database_id: m.id,
    name: m.name,
    vendor: m.vendor,
    website: m.website,
    contact: m.contact,
    release: m.release,
    kind: m.kind,
    product_count: n,
    predicted_property_ids: hasPredictions(m) ? [...ADMET_NAMES] : [],
  };
}

/** Copies the numeric property columns of one shard into the library-wide columns at `base`. */
function copyProperties(columns: Map<string, Float64Array>, shard: ShardData, base: number): void {
  for (const [p, dst] of columns)
    column(shard, p).forEach((v, r) => (dst[base + r] = typeof v === 'number' ? v : NaN));
}

/** Loads every shard of `catalog` and returns it as a Library (for the API thread). */
export async function openCatalogLibrary(catalog: Catalog, pool?: PoolKnn): Promise<Library> {
  const shards: ShardData[] = [];
  for (let i = 0; i < catalog.manifest.shards.length; i++) {
    const file = await readFile(catalog.shardPath(i));
    const bytes = new Uint8Array(file.byteLength); // fresh buffer: 8-byte aligned, as readShard needs
    bytes.set(file);
    shards.push(readShard(bytes, i));
  }
  return shardsLibrary(catalog.manifest, shards, { source: { kind: 'catalog', dir: catalog.dir }, pool });
}

/**
 * A Library over parsed shards of catalog `m` held in memory, rows numbered across them in the
 * order given: a whole catalog (openCatalogLibrary), or the few rows a fleet search brought back
 * (each worker's hits as a small shard file, engine/catalog/subset.ts), so both render alike.
 * Columns are copied out; masked k-NN (or any k-NN without `pool`) is a JS scan.
 */
export function shardsLibrary(
  m: CatalogManifest,
  shards: ShardData[],
  opts: { source?: Library['source']; pool?: PoolKnn } = {},
): Library {
  const { pool } = opts;
  const n = shards.reduce((sum, s) => sum + s.rows, 0);
  const fps = new Uint8Array(n * 256);
  const popcounts = new Uint16Array(n);
  const ids: string[] = new Array(n);
  const smiles: string[] = new Array(n);
  const scaffolds: string[] = new Array(n);
  const prices = new Float64Array(n);
  const columns = new Map<string, Float64Array>(propertyNames(m).map((p) => [p, new Float64Array(n)]));
  const offsets: number[] = [];
  let base = 0;
  for (const shard of shards) {
    offsets.push(base);
    fps.set(shard.fingerprints.subarray(0, shard.rows * 256), base * 256);
    popcounts.set(shard.popcounts.subarray(0, shard.rows), base);
    column(shard, 'product_id').forEach((v, r) => (ids[base + r] = String(v)));
    column(shard, 'smiles').forEach((v, r) => (smiles[base + r] = String(v)));
    column(shard, 'scaffold').forEach((v, r) => (scaffolds[base + r] = String(v ?? '')));
    column(shard, 'price').forEach((v, r) => (prices[base + r] = typeof v === 'number' ? v : NaN));
    copyProperties(columns, shard, base);
    base += shard.rows;
  }
  const knn: Library['knn'] = async (query, k, mask, limits) => {
    if (mask || !pool) return bruteForceKnn(fps, popcounts, query, k, mask);
    const hits = await pool.knn({ catalogs: [m.id], query, k, ...limits });
    return {
      rows: Int32Array.from(hits, (h) => offsets[h.shard] + h.row),
      scores: Float32Array.from(hits, (h) => h.similarity),
    };
  };
  return {
    info: infoOf(m, n),
    ...(opts.source ? { source: opts.source } : {}),
    size: n,
    productId: (row) => ids[row],
    smiles: (row) => smiles[row],
    scaffold: (row) => scaffolds[row],
    fingerprint: (row) => fps.subarray(row * 256, row * 256 + 256),
    price: (row) => listPrice(prices[row]),
    column: (id) => columns.get(id),
    knn,
  };
}

/**
 * Loads every shard of `catalog` into kernel memory (one read per file, no copy of the
 * fingerprints) and returns it as a Library whose knn is the exact WebAssembly scan, masked rows
 * never entering the top-k. Synchronous CPU work per query: for worker threads (selection pool).
 */
export async function openScanLibrary(catalog: Catalog): Promise<Library> {
  const m = catalog.manifest;
  const n = rowCount(m);
  const shards: ShardData[] = [];
  const starts = new Int32Array(m.shards.length + 1);
  const columns = new Map<string, Float64Array>(propertyNames(m).map((p) => [p, new Float64Array(n)]));
  for (let i = 0; i < m.shards.length; i++) {
    const shard = loadShardForScan(catalog.shardPath(i), i, readShard);
    shards.push(shard);
    copyProperties(columns, shard, starts[i]);
    starts[i + 1] = starts[i] + shard.rows;
  }
  if (starts[m.shards.length] !== n)
    throw new Error(`catalog ${m.id}: shards hold ${starts[m.shards.length]} rows, manifest says ${n}`);
  const strings = ['product_id', 'smiles', 'scaffold', 'price'].map((name) =>
    shards.map((s) => s.table.getChild(name)),
  );
  const locate = (row: number): number => {
    let lo = 0;
    let hi = shards.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= row) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const cell = (c: number, row: number): unknown => {
    const s = locate(row);
    return strings[c][s]?.get(row - starts[s]) ?? null;
  };
  const knn = async (query: Uint8Array, k: number, mask?: Uint8Array): Promise<KnnResult> => {
    const q = prepareTanimoto(query);
    let hits: Hit[] = [];
    for (let s = 0; s < shards.length; s++) {
      // The k-th score so far (inclusive) lets BitBound skip more of later shards; still exact.
      const floor = hits.length >= k && k > 0 ? hits[k - 1].similarity : undefined;
      const r = scanShardTopK(shards[s], q, { k, floor, mask: mask?.subarray(starts[s], starts[s + 1]) });
      hits = mergeHits(
        hits,
        Array.from(r.rows, (row, j) => ({ catalog: m.id, shard: s, row, similarity: r.scores[j] })),
        k,
      );
    }
    return {
      rows: Int32Array.from(hits, (h) => starts[h.shard] + h.row),
      scores: Float32Array.from(hits, (h) => h.similarity),
    };
  };
  return {
    info: infoOf(m, n),
    source: { kind: 'catalog', dir: catalog.dir },
    size: n,
    productId: (row) => String(cell(0, row)),
    smiles: (row) => String(cell(1, row)),
    scaffold: (row) => String(cell(2, row) ?? ''),
    fingerprint: (row) => {
      const s = locate(row);
      const o = (row - starts[s]) * 256;
      return shards[s].fingerprints.subarray(o, o + 256);
    },
    price: (row) => {
      const v = cell(3, row);
      return typeof v === 'number' ? listPrice(v) : null;
    },
    column: (id) => columns.get(id),
    knn,
  };
}
