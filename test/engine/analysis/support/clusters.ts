/** Constructed clustering cases: seeded blobs and partition equality. */
import { matrixFromRows, type Matrix } from '../../../../engine/analysis/cluster/matrix.ts';
import { createPrng } from '../../../../engine/selection/prng.ts';

/** Seeded points around the given centres (uniform noise of ±spread). */
export function blobs(
  centres: number[][],
  perBlob: number,
  spread: number,
  seed: number,
): { data: Matrix; truth: number[] } {
  const next = createPrng(seed);
  const rows: number[][] = [];
  const truth: number[] = [];
  for (let i = 0; i < perBlob; i++)
    centres.forEach((c, k) => {
      rows.push(c.map((x) => x + ((next() / 2 ** 32) * 2 - 1) * spread));
      truth.push(k);
    });
  return { data: matrixFromRows(rows), truth };
}

/** True when two labelings describe the same partition. */
export function samePartition(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  const map = new Map<number, number>();
  const back = new Map<number, number>();
  for (let i = 0; i < a.length; i++) {
    if ((map.get(a[i]) ?? b[i]) !== b[i] || (back.get(b[i]) ?? a[i]) !== a[i]) return false;
    map.set(a[i], b[i]);
    back.set(b[i], a[i]);
  }
  return true;
}
