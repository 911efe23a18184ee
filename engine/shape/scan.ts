/**
 * The first-stage scan: every row of a descriptor table scored against a query by the best USR
 * similarity over (query conformer, row conformer) pairs, keeping the k best rows. Rows hold
 * varying numbers of conformers: row r's descriptors are conformers offsets[r] .. offsets[r+1]−1.
 */
import { DESCRIPTOR_LENGTH } from './descriptors.ts';

export interface DescriptorTable {
  /** Float32Array(totalConformers × 60). */
  descriptors: Float32Array;
  /** Uint32Array(rows + 1): conformer offsets of each row. */
  offsets: Uint32Array;
}

export interface Shortlist {
  rows: Uint32Array;
  scores: Float32Array;
}

/** Packs per-molecule descriptors (`length` floats per conformer) into one table. */
export function descriptorTable(perRow: Float32Array[], length = DESCRIPTOR_LENGTH): DescriptorTable {
  const offsets = new Uint32Array(perRow.length + 1);
  perRow.forEach((d, r) => (offsets[r + 1] = offsets[r] + d.length / length));
  const descriptors = new Float32Array(offsets[perRow.length] * length);
  perRow.forEach((d, r) => descriptors.set(d, offsets[r] * length));
  return { descriptors, offsets };
}

/** The k rows of `table` most similar to `query` (descriptors of its conformers), best first. */
export function scanShortlist(query: Float32Array, table: DescriptorTable, k: number): Shortlist {
  const { descriptors: db, offsets } = table;
  const rows = offsets.length - 1;
  const qn = query.length / DESCRIPTOR_LENGTH;
  const L = DESCRIPTOR_LENGTH;
  const scores = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    // Smallest mean absolute difference over conformer pairs = best USR similarity.
    let best = Infinity;
    for (let c = offsets[r]; c < offsets[r + 1]; c++)
      for (let q = 0; q < qn; q++) {
        let s = 0;
        const a = q * L;
        const b = c * L;
        for (let i = 0; i < L && s < best; i++) s += Math.abs(query[a + i] - db[b + i]);
        if (s < best) best = s;
      }
    scores[r] = 1 / (1 + best / L);
  }
  const order = topK(scores, Math.min(k, rows));
  return { rows: order, scores: Float32Array.from(order, (r) => scores[r]) };
}

/** Indices of the k largest scores, best first (ties by lower index). */
export function topK(scores: Float32Array, k: number): Uint32Array {
  const idx = Uint32Array.from({ length: scores.length }, (_, i) => i);
  if (k < scores.length) {
    // Partial selection by threshold: sort a copy of the scores once; k ≪ rows in practice.
    const sorted = Float32Array.from(scores).sort();
    const cut = sorted[scores.length - k];
    const kept = idx.filter((i) => scores[i] >= cut);
    return kept.sort((a, b) => scores[b] - scores[a] || a - b).slice(0, k);
  }
  return idx.sort((a, b) => scores[b] - scores[a] || a - b);
}
