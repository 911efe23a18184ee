/**
 * Merging scan parts into a job result: a k-way merge in the engine's total order (similarity desc,
 * then catalog, shard, row asc) that keeps the first occurrence of each product id, then a join of
 * the catalog columns for the kept rows. Pure apart from reading the given shards' Arrow columns.
 */
import type { Table } from 'apache-arrow';
import { tanimoto } from '../engine/chem/fingerprint.ts';
import { allocJobResult, PROPERTY_KEYS, type JobResult } from '../engine/export/index.ts';

export interface MergePart {
  catalog: string;
  shard: number;
  rows: Int32Array;
  /** Sorted descending; 3D parts rank by their doubles. */
  scores: Float32Array | Float64Array;
}

export interface MergedRows {
  part: Int32Array;
  row: Int32Array;
  score: Float32Array;
}

/** Best `k` rows over sorted parts, unique by `idOf(part, row)`; ties broken by (catalog, shard, row). */
export function mergeParts(
  parts: MergePart[],
  k: number,
  idOf: (part: number, row: number) => string,
): MergedRows {
  const order = parts
    .map((_, i) => i)
    .sort((a, b) =>
      parts[a].catalog < parts[b].catalog
        ? -1
        : parts[a].catalog > parts[b].catalog
          ? 1
          : parts[a].shard - parts[b].shard,
    );
  const pos = new Int32Array(parts.length);
  const total = parts.reduce((s, p) => s + p.rows.length, 0);
  const cap = Math.min(k, total);
  const out = { part: new Int32Array(cap), row: new Int32Array(cap), score: new Float32Array(cap) };
  const seen = new Set<string>();
  let n = 0;
  while (n < cap) {
    // P is small (shards of the searched catalogs), so a linear pick of the best head is enough.
    let best = -1;
    for (const p of order) {
      if (pos[p] >= parts[p].rows.length) continue;
      if (best < 0) {
        best = p;
        continue;
      }
      const s = parts[p].scores[pos[p]];
      const b = parts[best].scores[pos[best]];
      // `order` is by (catalog, shard), so on equal scores the earlier part wins; within a part rows are already ordered.
      if (s > b) best = p;
    }
    if (best < 0) break;
    const row = parts[best].rows[pos[best]];
    const score = parts[best].scores[pos[best]];
    pos[best]++;
    const id = idOf(best, row);
    if (seen.has(id)) continue;
    seen.add(id);
    out.part[n] = best;
    out.row[n] = row;
    out.score[n] = score;
    n++;
  }
  return { part: out.part.subarray(0, n), row: out.row.subarray(0, n), score: out.score.subarray(0, n) };
}

/** A numeric column of a one-batch shard table as values plus validity (NaN where null). */
function numericColumn(table: Table, name: string): ((row: number) => number) | undefined {
  const col = table.getChild(name);
  if (!col) return undefined;
  const d = col.data[0];
  const values = d.values as Float64Array | Float32Array;
  const bitmap = d.nullCount > 0 ? d.nullBitmap : null;
  return (row) => {
    const i = d.offset + row;
    if (bitmap && !((bitmap[i >> 3] >> (i & 7)) & 1)) return NaN;
    return values[i];
  };
}

export interface JoinSource {
  catalog: string;
  table: Table;
  /** The shard's fingerprint column (rows × 256 bytes). */
  fingerprints: Uint8Array;
}

/**
 * Exact (double) Tanimoto of the kept rows, as the synchronous search answers it, then a stable
 * re-sort by it: the kernel ranks in float32, whose ties the exact values may order differently.
 */
function exactOrder(
  merged: MergedRows,
  sources: JoinSource[],
  queryFp: Uint8Array,
): { order: Int32Array; exact: Float64Array } {
  const n = merged.row.length;
  const exact = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const fps = sources[merged.part[i]].fingerprints;
    exact[i] = tanimoto(queryFp, fps.subarray(merged.row[i] * 256, merged.row[i] * 256 + 256));
  }
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => exact[b] - exact[a] || a - b);
  return { order, exact };
}

/**
 * The job result of merged rows, as the synchronous search names them: smiles, id and db_id (the
 * product id), database (catalog id), similarity (exact Tanimoto against `queryFp`), and the 33
 * property columns (NaN where a catalog has no value); sorted by similarity desc.
 */
export function joinResult(merged: MergedRows, sources: JoinSource[], queryFp: Uint8Array): JobResult {
  const { order, exact } = exactOrder(merged, sources, queryFp);
  return fillResult(merged, order, exact, sources);
}

/**
 * The job result of merged rows in the order `order` (positions in `merged`), similarity of merged
 * row m being `similarity[m]`: the catalog columns joined from each part's shard table.
 */
export function fillResult(
  merged: MergedRows,
  order: Int32Array,
  similarity: Float64Array,
  sources: Pick<JoinSource, 'catalog' | 'table'>[],
): JobResult {
  const n = order.length;
  const exact = similarity;
  const r = allocJobResult(n);
  const getters = sources.map((s) => ({
    id: s.table.getChild('product_id')!,
    smiles: s.table.getChild('smiles')!,
    props: PROPERTY_KEYS.map((k) => numericColumn(s.table, k)),
  }));
  for (let i = 0; i < n; i++) {
    const m = order[i];
    const p = merged.part[m];
    const row = merged.row[m];
    const g = getters[p];
    r.id[i] = g.id.get(row) as string;
    r.smiles[i] = g.smiles.get(row) as string;
    r.database[i] = sources[p].catalog;
    r.dbId[i] = r.id[i];
    r.similarity[i] = exact[m];
    for (let j = 0; j < PROPERTY_KEYS.length; j++) {
      const get = g.props[j];
      if (get) r.props[j][i] = get(row);
    }
  }
  return r;
}
