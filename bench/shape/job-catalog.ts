/**
 * The 100,000-row 3D catalog of bench/shape/job-bench.ts, in the real catalog format (Arrow shards
 * and row-aligned 3D sidecars, manifest with `three_d`). Embedding 100,000 molecules takes CPU
 * hours on this machine, so, as the fingerprint benchmark does, it is made from a real base: the
 * 3D-ready catalog that bench/shape/stage-bench.ts leaves (real ZINC15 molecules embedded by the
 * real stage). Row g is copy k = floor(g / B) of base row g mod B (B = the base's embedded rows):
 * copy 0 is the base row itself; copy k > 0 keeps its SMILES, 2D columns, elements and charges and
 * gets the base conformers under a random rigid rotation and translation (±5 Å) plus Gaussian
 * noise (σ = 0.05 Å) on every coordinate, its product id suffixed `_cK`.
 */
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ADMET_NAMES,
  ADMET_OOD_COLUMN,
  encodeShard,
  openCatalog,
  readShard,
  sha256Hex,
  type CatalogManifest,
} from '../../engine/catalog/index.ts';
import { loadShard3d, molecule3d } from '../../engine/catalog/three-d-reader.ts';
import {
  encodeSidecar,
  SEARCH_TYPES_3D,
  sidecarFile,
  type Catalog3dInfo,
  type Molecule3d,
} from '../../engine/catalog/three-d-schema.ts';
import { DESCRIPTOR_NAMES } from '../../engine/chem/index.ts';

interface BaseRow {
  id: string;
  smiles: string;
  fp: Uint8Array;
  popcount: number;
  descriptors: number[];
  scaffold: string;
  price: number;
  admet: number[];
  ood: number | null;
  mol: Molecule3d;
}

function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return (s + 0.5) / 2 ** 32;
  };
}

/** The embedded rows of a 3D-ready catalog, with every 2D column and their conformers. */
async function readBase(dir: string): Promise<{ manifest: CatalogManifest; rows: BaseRow[] }> {
  const c = await openCatalog(dir);
  const rows: BaseRow[] = [];
  for (let i = 0; i < c.manifest.shards.length; i++) {
    const buf = readFileSync(c.shardPath(i));
    const shard = readShard(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength), i);
    const s3 = await loadShard3d(c, i);
    const t = shard.table;
    const num = (name: string, r: number) => (t.getChild(name)!.get(r) as number | null) ?? NaN;
    for (let r = 0; r < shard.rows; r++) {
      const mol = molecule3d(s3, r);
      if (!mol) continue; // a 3D reject of the base: not copied
      rows.push({
        id: t.getChild('product_id')!.get(r) as string,
        smiles: t.getChild('smiles')!.get(r) as string,
        fp: shard.fingerprints.slice(r * 256, r * 256 + 256),
        popcount: shard.popcounts[r],
        descriptors: DESCRIPTOR_NAMES.map((n) => num(n, r)),
        scaffold: t.getChild('scaffold')!.get(r) as string,
        price: num('price', r),
        admet: ADMET_NAMES.map((n) => num(n, r)),
        ood: t.getChild(ADMET_OOD_COLUMN) ? (t.getChild(ADMET_OOD_COLUMN)!.get(r) as number | null) : null,
        mol: { ...mol, coords: Float32Array.from(mol.coords) },
      });
    }
  }
  return { manifest: c.manifest, rows };
}

/** A rigid random motion plus coordinate noise of a molecule's conformers (charges, atoms kept). */
function perturb(m: Molecule3d, rand: () => number): Molecule3d {
  // Uniform random rotation (Shoemake's quaternion), translation in ±5 Å, noise σ 0.05 Å.
  const [u1, u2, u3] = [rand(), rand(), rand()];
  const a = Math.sqrt(1 - u1) * Math.sin(2 * Math.PI * u2);
  const b = Math.sqrt(1 - u1) * Math.cos(2 * Math.PI * u2);
  const c = Math.sqrt(u1) * Math.sin(2 * Math.PI * u3);
  const d = Math.sqrt(u1) * Math.cos(2 * Math.PI * u3);
  const R = [
    [1 - 2 * (c * c + d * d), 2 * (b * c - a * d), 2 * (b * d + a * c)],
    [2 * (b * c + a * d), 1 - 2 * (b * b + d * d), 2 * (c * d - a * b)],
    [2 * (b * d - a * c), 2 * (c * d + a * b), 1 - 2 * (b * b + c * c)],
  ];
  const t = [0, 1, 2].map(() => (rand() - 0.5) * 10);
  const gauss = () => Math.sqrt(-2 * Math.log(rand())) * Math.cos(2 * Math.PI * rand()) * 0.05;
  const out = new Float32Array(m.coords.length);
  for (let p = 0; p < m.coords.length; p += 3) {
    const [x, y, z] = [m.coords[p], m.coords[p + 1], m.coords[p + 2]];
    for (let k = 0; k < 3; k++) out[p + k] = R[k][0] * x + R[k][1] * y + R[k][2] * z + t[k] + gauss();
  }
  return { ...m, coords: out };
}

/** Writes catalog `id` of `rows` rows (shards of `shardRows`) under root/id from the base catalog. */
export async function writeJobCatalog(opts: {
  baseDir: string;
  root: string;
  id: string;
  rows: number;
  shardRows: number;
  seed?: number;
}): Promise<{ baseRows: number; conformers: number }> {
  const { manifest: bm, rows: base } = await readBase(opts.baseDir);
  const bi = bm.three_d!;
  const rand = rng(opts.seed ?? 9);
  const dir = join(opts.root, opts.id);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const shards: CatalogManifest['shards'] = [];
  const files: Catalog3dInfo['files'] = [];
  let conformers = 0;
  for (let s = 0, g0 = 0; g0 < opts.rows; s++, g0 += opts.shardRows) {
    const n = Math.min(opts.shardRows, opts.rows - g0);
    // Popcount-sorted within the shard, as the builder writes them (ties by global row).
    const order = Array.from({ length: n }, (_, i) => g0 + i).sort(
      (x, y) => base[x % base.length].popcount - base[y % base.length].popcount || x - y,
    );
    const src = order.map((g) => base[g % base.length]);
    const copy = order.map((g) => Math.floor(g / base.length));
    const fps = new Uint8Array(n * 256);
    src.forEach((r, i) => fps.set(r.fp, i * 256));
    const admet: Record<string, Float32Array> = {};
    ADMET_NAMES.forEach((name, k) => {
      if (src.some((r) => !Number.isNaN(r.admet[k]))) admet[name] = Float32Array.from(src, (r) => r.admet[k]);
    });
    const hasOod = src.some((r) => r.ood !== null);
    const bytes = encodeShard(
      {
        productIds: src.map((r, i) => (copy[i] === 0 ? r.id : `${r.id}_c${copy[i]}`)),
        smiles: src.map((r) => r.smiles),
        fps,
        popcounts: Uint16Array.from(src, (r) => r.popcount),
        descriptors: DESCRIPTOR_NAMES.map((_, k) => Float64Array.from(src, (r) => r.descriptors[k])),
        scaffolds: src.map((r) => r.scaffold),
        prices: Float64Array.from(src, (r) => r.price),
        admet: Object.keys(admet).length ? admet : null,
        admetOod: hasOod ? Uint32Array.from(src, (r) => r.ood ?? 0) : null,
        admetOodValid: hasOod ? Uint8Array.from(src, (r) => (r.ood === null ? 0 : 1)) : null,
      },
      bm.fingerprint.rdkit_version,
    );
    const file = `shard-${String(s).padStart(5, '0')}.arrow`;
    const sha256 = sha256Hex(bytes);
    await writeFile(join(dir, file), bytes);
    shards.push({
      file,
      rows: n,
      popcount_min: src[0].popcount,
      popcount_max: src[n - 1].popcount,
      sha256,
    });
    const mols = src.map((r, i) => (copy[i] === 0 ? r.mol : perturb(r.mol, rand)));
    conformers += mols.reduce((t, m) => t + m.confCount, 0);
    const side = encodeSidecar(mols, bi.embedding, { file, sha256 });
    await writeFile(join(dir, sidecarFile(file)), side);
    files.push({ file: sidecarFile(file), shard_file: file, rows: n, sha256: sha256Hex(side) });
  }
  const rejects = 'shard\trow\tproduct_id\tsmiles\treason\n';
  await writeFile(join(dir, 'rejects-3d.tsv'), rejects);
  const manifest: CatalogManifest = {
    ...bm,
    id: opts.id,
    name: `${opts.rows} 3D rows: ${base.length} embedded ZINC15 molecules and perturbed copies (bench)`,
    created_at: new Date().toISOString(),
    counts: { input_rows: opts.rows, molecules: opts.rows, rejected: 0, duplicates: 0 },
    shards,
    search_types: ['morgan', ...SEARCH_TYPES_3D],
    three_d: {
      ...bi,
      created_at: new Date().toISOString(),
      counts: { molecules: opts.rows, embedded: opts.rows, rejected: 0, conformers },
      files,
    },
  };
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1));
  return { baseRows: base.length, conformers };
}
