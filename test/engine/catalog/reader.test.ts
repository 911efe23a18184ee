import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CATALOG_FORMAT,
  COLUMNS,
  encodeShard,
  listCatalogs,
  openCatalog,
  readShard,
  rowRecord,
  type ShardColumns,
} from '../../../engine/catalog/index.ts';

function columns(n: number): ShardColumns {
  return {
    productIds: Array.from({ length: n }, (_, i) => `P${i}`),
    smiles: Array.from({ length: n }, (_, i) => 'C'.repeat(i + 1)),
    fps: new Uint8Array(n * 256).map((_, i) => (i * 31) & 0xff),
    popcounts: Uint16Array.from({ length: n }, (_, i) => 10 + i),
    descriptors: Array.from({ length: 11 }, (_, k) => Float64Array.from({ length: n }, (_, i) => k + i / 10)),
    scaffolds: Array.from({ length: n }, () => ''),
    prices: Float64Array.from({ length: n }, (_, i) => (i % 2 ? 100 + i : NaN)),
    admet: { ames: Float32Array.from({ length: n }, (_, i) => i / 4) },
  };
}

describe('readShard', () => {
  const bytes = encodeShard(columns(7), '2026.09.1');

  it('views fingerprints and popcounts inside a SharedArrayBuffer without copying', () => {
    const sab = new SharedArrayBuffer(bytes.length + 64);
    const view = new Uint8Array(sab, 16, bytes.length);
    view.set(bytes);
    const shard = readShard(view, 3);
    expect(shard.index).toBe(3);
    expect(shard.rows).toBe(7);
    expect(shard.fingerprints.buffer).toBe(sab);
    expect(shard.popcounts.buffer).toBe(sab);
    expect(Array.from(shard.popcounts)).toEqual([10, 11, 12, 13, 14, 15, 16]);
    // a write through the source bytes shows in the view: same memory
    const at = shard.fingerprints.byteOffset - view.byteOffset;
    view[at] = 0xab;
    expect(shard.fingerprints[0]).toBe(0xab);
  });

  it('views shard bytes placed in WebAssembly memory without copying', () => {
    // lib ES2023 has no WebAssembly typings; the runtime has it.
    const WA = (
      globalThis as unknown as {
        WebAssembly: { Memory: new (d: { initial: number }) => { buffer: ArrayBuffer } };
      }
    ).WebAssembly;
    const mem = new WA.Memory({ initial: 1 });
    const view = new Uint8Array(mem.buffer, 4096, bytes.length);
    view.set(bytes);
    const shard = readShard(view, 0);
    expect(shard.fingerprints.buffer).toBe(mem.buffer);
    expect(shard.popcounts.buffer).toBe(mem.buffer);
    expect(shard.fingerprints.length).toBe(7 * 256);
  });

  it('throws a clear error for bytes at an odd address', () => {
    const odd = new Uint8Array(new ArrayBuffer(bytes.length + 1), 1, bytes.length);
    odd.set(bytes);
    expect(() => readShard(odd, 0)).toThrow(/not aligned/);
  });

  it('throws catalog_corrupt for bytes that are not Arrow', () => {
    expect(() => readShard(new Uint8Array(64), 0)).toThrow(
      expect.objectContaining({ code: 'catalog_corrupt' }),
    );
  });

  it('gives rows as plain records with nulls for missing price and ADMET values', () => {
    const shard = readShard(bytes, 0);
    const r0 = rowRecord(shard, 0);
    expect(r0.product_id).toBe('P0');
    expect(r0.price).toBeNull();
    expect(r0.herg).toBeNull();
    expect(r0.ames).toBe(0);
    expect(Object.keys(r0)).toEqual(COLUMNS.map((c) => c.name).filter((n) => n !== 'fp'));
    expect(rowRecord(shard, 1, ['price', 'ames', 'molecular_weight'])).toEqual({
      price: 101,
      ames: 0.25,
      molecular_weight: 0.1,
    });
    expect(rowRecord(shard, 0, ['fp']).fp).toBe(
      Buffer.from(shard.fingerprints.subarray(0, 256)).toString('hex'),
    );
    expect(() => rowRecord(shard, 7)).toThrow(RangeError);
  });
});

describe('openCatalog and listCatalogs', () => {
  it('rejects a missing manifest and a different format version', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cat-open-'));
    await expect(openCatalog(join(root, 'none'))).rejects.toMatchObject({ code: 'catalog_not_found' });
    await mkdir(join(root, 'old'));
    await writeFile(join(root, 'old', 'manifest.json'), JSON.stringify({ format: 'molsearch-catalog/0' }));
    await expect(openCatalog(join(root, 'old'))).rejects.toMatchObject({ code: 'catalog_format' });
    await mkdir(join(root, 'good'));
    const manifest = {
      format: CATALOG_FORMAT,
      id: 'good',
      name: 'Good',
      vendor: 'v',
      website: '',
      contact: '',
      kind: 'enumerated',
      release: 'r',
      created_at: new Date().toISOString(),
      counts: { input_rows: 0, molecules: 0, rejected: 0, duplicates: 0 },
      fingerprint: { kind: 'morgan', radius: 2, nBits: 2048, rdkit_version: '2026.09.1' },
      columns: COLUMNS,
      models: null,
      shards: [],
    };
    await writeFile(join(root, 'good', 'manifest.json'), JSON.stringify(manifest));
    await mkdir(join(root, 'wrongfp'));
    await writeFile(
      join(root, 'wrongfp', 'manifest.json'),
      JSON.stringify({ ...manifest, fingerprint: { kind: 'morgan', radius: 3, nBits: 2048 } }),
    );
    const list = await listCatalogs(root);
    expect(list.map((c) => c.manifest.id)).toEqual(['good']);
    expect(await listCatalogs(join(root, 'missing'))).toEqual([]);
  });
});
