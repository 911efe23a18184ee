/**
 * Writes fingerprints as a real catalog (engine/catalog format: manifest.json + Arrow shards via
 * encodeShard), with placeholder values in the non-search columns. Used by the integration test
 * with the real reader and by bench/fingerprint. Fingerprints are sorted by popcount first.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DESCRIPTOR_NAMES } from '../engine/chem/descriptors.ts';
import { MORGAN_FP } from '../engine/chem/fingerprint.ts';
import { CATALOG_FORMAT, COLUMNS, MANIFEST_FILE, type CatalogManifest } from '../engine/catalog/schema.ts';
import { encodeShard, sha256Hex } from '../engine/catalog/shard-writer.ts';
import { popcountOf } from '../engine/search/kernel-js.ts';

/**
 * Writes `fps` (rows x 256 bytes, any order) to dir as catalog `id` with shards of `shardRows`.
 * Returns the popcount-sorted bytes and, per sorted row, the input row it came from.
 */
export function writeFormatCatalog(
  dir: string,
  id: string,
  fps: Uint8Array,
  shardRows: number,
): { sorted: Uint8Array; order: Int32Array } {
  mkdirSync(dir, { recursive: true });
  const n = fps.length / 256;
  const pcs = Uint16Array.from({ length: n }, (_, i) => popcountOf(fps, i));
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => pcs[a] - pcs[b] || a - b);
  const sorted = new Uint8Array(fps.length);
  order.forEach((src, dst) => sorted.set(fps.subarray(src * 256, src * 256 + 256), dst * 256));
  const shards: CatalogManifest['shards'] = [];
  for (let s = 0; s < n; s += shardRows) {
    const e = Math.min(n, s + shardRows);
    const rows = e - s;
    const popcounts = Uint16Array.from({ length: rows }, (_, i) => pcs[order[s + i]]);
    const ids = Array.from({ length: rows }, (_, i) => `${id}-${order[s + i]}`);
    shards.push(writeFormatShard(dir, shards.length, ids, sorted.slice(s * 256, e * 256), popcounts));
  }
  writeFormatManifest(dir, id, n, shards);
  return { sorted, order };
}

/**
 * Writes shard number `index` of a format catalog: `fps` (rows × 256 bytes, popcount order) with
 * their `popcounts` and product ids, placeholder values elsewhere. Returns its manifest entry.
 * bench/fleet/big-catalog.ts writes catalogs too large for one buffer shard by shard with it.
 */
export function writeFormatShard(
  dir: string,
  index: number,
  productIds: string[],
  fps: Uint8Array,
  popcounts: Uint16Array,
): CatalogManifest['shards'][number] {
  const rows = popcounts.length;
  const bytes = encodeShard(
    {
      productIds,
      smiles: new Array<string>(rows).fill(''),
      fps,
      popcounts,
      descriptors: DESCRIPTOR_NAMES.map(() => new Float64Array(rows)),
      scaffolds: new Array<string>(rows).fill(''),
      prices: new Float64Array(rows).fill(NaN),
      admet: null,
    },
    'bench',
  );
  const file = `shard-${String(index).padStart(5, '0')}.arrow`;
  writeFileSync(join(dir, file), bytes);
  return {
    file,
    rows,
    popcount_min: popcounts[0],
    popcount_max: popcounts[rows - 1],
    sha256: sha256Hex(bytes),
  };
}

/** The manifest of a format catalog of `n` rows over `shards` (in index order). */
export function writeFormatManifest(
  dir: string,
  id: string,
  n: number,
  shards: CatalogManifest['shards'],
): void {
  const manifest: CatalogManifest = {
    format: CATALOG_FORMAT,
    id,
    name: id,
    vendor: 'test',
    website: '',
    contact: '',
    kind: 'enumerated',
    release: '1',
    created_at: new Date(0).toISOString(),
    counts: { input_rows: n, molecules: n, rejected: 0, duplicates: 0 },
    fingerprint: { ...MORGAN_FP, rdkit_version: 'bench' },
    columns: [...COLUMNS],
    models: null,
    shards,
  };
  writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest, null, 1));
}
