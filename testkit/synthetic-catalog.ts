/**
 * A synthetic catalog for job tests: random Morgan-sized fingerprints (seeded), rows sorted by
 * popcount per shard, fake SMILES, descriptors and half-filled ADMET columns, written in the real
 * catalog format (engine/catalog encodeShard + manifest). Chemistry is not the point here (the
 * real-molecule test uses the catalog builder); scale and job mechanics are. Every 97th product id
 * of shard 1 repeats an id of shard 0, to exercise uniqueness by id.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ADMET_NAMES,
  CATALOG_FORMAT,
  COLUMNS,
  encodeShard,
  sha256Hex,
  type CatalogManifest,
} from '../engine/catalog/index.ts';
import { DESCRIPTOR_NAMES } from '../engine/chem/index.ts';

function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

const POP8 = Uint8Array.from({ length: 256 }, (_, i) => {
  let c = 0;
  for (let v = i; v; v >>= 1) c += v & 1;
  return c;
});

/** Writes catalog `id` with `rows` rows in shards of `shardRows` under root/id; returns the query fingerprint used nowhere (random). */
export async function writeSyntheticCatalog(
  root: string,
  id: string,
  rows: number,
  shardRows: number,
  seed = 7,
): Promise<CatalogManifest> {
  const rand = rng(seed);
  const dir = join(root, id);
  await mkdir(dir, { recursive: true });
  const shards: CatalogManifest['shards'] = [];
  let made = 0;
  for (let s = 0; made < rows; s++) {
    const n = Math.min(shardRows, rows - made);
    const raw = new Uint8Array(n * 256);
    const pcs = new Uint16Array(n);
    for (let i = 0; i < n; i++) {
      const bits = 20 + Math.floor(rand() * 80);
      for (let j = 0; j < bits; j++) {
        const b = Math.floor(rand() * 2048);
        raw[i * 256 + (b >> 3)] |= 1 << (b & 7);
      }
      for (let b = 0; b < 256; b++) pcs[i] += POP8[raw[i * 256 + b]];
    }
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => pcs[a] - pcs[b] || a - b);
    const fps = new Uint8Array(n * 256);
    const popcounts = new Uint16Array(n);
    order.forEach((src, dst) => {
      fps.set(raw.subarray(src * 256, src * 256 + 256), dst * 256);
      popcounts[dst] = pcs[src];
    });
    const productIds = order.map((src) =>
      s === 1 && src % 97 === 0
        ? `P${String(src).padStart(7, '0')}`
        : `P${String(made + src).padStart(7, '0')}`,
    );
    const admet: Record<string, Float32Array> = {};
    ADMET_NAMES.forEach((name, k) => {
      if (k % 2 === 0)
        admet[name] = Float32Array.from(order, (src) => (src % 5 === 0 ? NaN : (src % 100) / 100));
    });
    const bytes = encodeShard(
      {
        productIds,
        smiles: order.map((src) => 'C'.repeat(1 + (src % 20))),
        fps,
        popcounts,
        descriptors: DESCRIPTOR_NAMES.map((_, k) =>
          Float64Array.from(order, (src) => k * 100 + (src % 1000) / 10),
        ),
        scaffolds: order.map(() => ''),
        prices: new Float64Array(n).fill(NaN),
        admet,
      },
      'synthetic',
    );
    const file = `shard-${String(s).padStart(5, '0')}.arrow`;
    await writeFile(join(dir, file), bytes);
    shards.push({
      file,
      rows: n,
      popcount_min: popcounts[0],
      popcount_max: popcounts[n - 1],
      sha256: sha256Hex(bytes),
    });
    made += n;
  }
  const manifest: CatalogManifest = {
    format: CATALOG_FORMAT,
    id,
    name: `Synthetic ${id}`,
    vendor: 'test',
    website: 'https://example.org',
    contact: 'test@example.org',
    kind: 'enumerated',
    release: '1',
    created_at: new Date(0).toISOString(),
    counts: { input_rows: rows, molecules: rows, rejected: 0, duplicates: 0 },
    fingerprint: { kind: 'morgan', radius: 2, nBits: 2048, rdkit_version: 'synthetic' },
    columns: [...COLUMNS],
    models: null,
    shards,
  };
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1));
  return manifest;
}
