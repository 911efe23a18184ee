/**
 * Some rows of a shard as a shard of their own (same format, rows in the given order): what a
 * fleet worker sends back with its hits, so the API renders and filters them exactly as rows of a
 * shard it held itself, without holding the catalog.
 */
import { DESCRIPTOR_NAMES } from '../chem/descriptors.ts';
import { FP_BYTES } from '../chem/fingerprint.ts';
import type { ShardData } from './reader.ts';
import { ADMET_NAMES, ADMET_OOD_COLUMN } from './schema.ts';
import { encodeShard } from './shard-writer.ts';

/** Encodes `rows` of `shard` (in that order) as a shard file. */
export function encodeShardRows(shard: ShardData, rows: readonly number[], rdkitVersion: string): Uint8Array {
  const n = rows.length;
  const t = shard.table;
  const col = (name: string) => t.getChild(name);
  const str = (name: string) => rows.map((r) => String(col(name)!.get(r)));
  const num = <A extends Float32Array | Float64Array>(name: string, make: (n: number) => A): A => {
    const c = col(name);
    const out = make(n);
    rows.forEach((r, i) => {
      const v = c?.get(r) as number | null | undefined;
      out[i] = v === null || v === undefined ? NaN : v;
    });
    return out;
  };
  const fps = new Uint8Array(n * FP_BYTES);
  const popcounts = new Uint16Array(n);
  rows.forEach((r, i) => {
    fps.set(shard.fingerprints.subarray(r * FP_BYTES, (r + 1) * FP_BYTES), i * FP_BYTES);
    popcounts[i] = shard.popcounts[r];
  });
  const ood = col(ADMET_OOD_COLUMN);
  const admetOod = new Uint32Array(n);
  const admetOodValid = new Uint8Array(n);
  if (ood)
    rows.forEach((r, i) => {
      const v = ood.get(r) as number | null;
      if (v !== null) {
        admetOod[i] = v;
        admetOodValid[i] = 1;
      }
    });
  return encodeShard(
    {
      productIds: str('product_id'),
      smiles: str('smiles'),
      fps,
      popcounts,
      descriptors: DESCRIPTOR_NAMES.map((d) => num(d, (k) => new Float64Array(k))),
      scaffolds: str('scaffold'),
      prices: num('price', (k) => new Float64Array(k)),
      admet: Object.fromEntries(ADMET_NAMES.map((a) => [a, num(a, (k) => new Float32Array(k))])),
      admetOod: ood ? admetOod : null,
      admetOodValid: ood ? admetOodValid : null,
    },
    rdkitVersion,
  );
}
