/**
 * The job merge in bounded memory: instead of holding every merged shard at once (a 100,000-row
 * job over a fleet catalog would need the whole catalog on the one worker that merges), it reads
 * one shard at a time and keeps only the rows that can reach the result, copied as a small shard
 * of their own (engine/catalog/subset.ts). Memory: one shard plus about k rows.
 *
 * Why this gives the same rows as merging over the whole shards: the merge walks the parts in one
 * total order (score desc, then catalog, shard, row) and keeps the first k distinct product ids.
 * The first m entries of that order are a prefix of every part; if they hold k distinct ids, the
 * dedup merge over just those prefixes picks exactly the same rows. Duplicate ids across the
 * searched catalogs can leave fewer than k, so m grows until k are found or the parts run out.
 */
import { readShard, type ShardData } from '../engine/catalog/reader.ts';
import { encodeShardRows } from '../engine/catalog/subset.ts';
import { mergeParts, type JoinSource, type MergePart, type MergedRows } from './jobs-merge.ts';

export interface BoundedMerge {
  merged: MergedRows;
  /** Per merged part (merged.part indexes it), the kept rows' columns. */
  sources: JoinSource[];
  /** Shard loads made (one per part reaching the result, per round). */
  loads: number;
}

/**
 * Best k rows over `parts`, unique by product id, with their columns. `load` returns a part's
 * shard; each is used only until the next is requested, so a cache of one shard is enough.
 */
export async function mergeBounded(
  parts: MergePart[],
  k: number,
  load: (part: MergePart) => Promise<ShardData>,
  rdkitVersion = 'job-merge',
): Promise<BoundedMerge> {
  const total = parts.reduce((s, p) => s + p.rows.length, 0);
  let m = Math.min(k, total);
  let loads = 0;
  for (;;) {
    // The first m entries of the total order, ignoring ids: how many of each part they take.
    const prefix = mergeParts(parts, m, (p, row) => `${p}:${row}`);
    const take = new Int32Array(parts.length);
    for (const p of prefix.part) take[p]++;
    const kept: MergePart[] = [];
    const sources: JoinSource[] = [];
    for (const [i, p] of parts.entries()) {
      const c = take[i];
      if (!c) continue;
      const shard = await load(p);
      loads++;
      const subset = readShard(
        encodeShardRows(shard, Array.from(p.rows.subarray(0, c)), rdkitVersion),
        p.shard,
      );
      sources.push({ catalog: p.catalog, table: subset.table, fingerprints: subset.fingerprints });
      // Rows renumbered to their position in the subset; order and scores are the part's own.
      kept.push({
        catalog: p.catalog,
        shard: p.shard,
        rows: Int32Array.from({ length: c }, (_, j) => j),
        scores: p.scores.subarray(0, c),
      });
    }
    const ids = sources.map((s) => s.table.getChild('product_id')!);
    const merged = mergeParts(kept, k, (p, row) => ids[p].get(row) as string);
    if (merged.row.length >= Math.min(k, total) || m >= total) return { merged, sources, loads };
    // Some ids repeated: widen the prefix by twice what is missing (one more round in practice).
    m = Math.min(total, m + 2 * (k - merged.row.length));
  }
}
