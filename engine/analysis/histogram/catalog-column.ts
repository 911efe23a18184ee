/**
 * Property histograms over catalog shards: the numeric columns of the catalog format (the 11
 * descriptors, price, the 22 ADMET predictions) read from a parsed shard's Arrow table, nulls
 * counted as missing. A workflow adds one shard per activity and merges the accumulators.
 */
import { COLUMNS } from '../../catalog/schema.ts';
import type { ShardData } from '../../catalog/reader.ts';
import { AnalysisError } from '../errors.ts';
import type { HistogramAccumulator } from './histogram.ts';

/** Catalog columns a property histogram can be drawn of. */
export const HISTOGRAM_COLUMNS: readonly string[] = COLUMNS.filter(
  (c) => c.type === 'float64' || c.type === 'float32',
).map((c) => c.name);

/** Checks a property name; throws `invalid_parameter` on `field` listing the allowed ones. */
export function histogramColumn(name: string, field = 'property'): string {
  if (HISTOGRAM_COLUMNS.includes(name)) return name;
  throw new AnalysisError(
    'invalid_parameter',
    field,
    `${JSON.stringify(name)} is not a numeric catalog column; allowed: ${HISTOGRAM_COLUMNS.join(', ')}`,
  );
}

/** Adds column `name` of a shard to `acc` (a catalog without the column counts every row as missing). */
export function addShardColumn(acc: HistogramAccumulator, shard: ShardData, name: string): void {
  const col = shard.table.getChild(histogramColumn(name));
  if (!col) {
    acc.add(new Array<null>(shard.rows).fill(null));
    return;
  }
  const raw = col.toArray() as Float64Array | Float32Array;
  if (col.nullCount === 0) {
    acc.add(raw);
    return;
  }
  // toArray() leaves whatever the buffer holds under a null: those rows are missing
  const values: Array<number | null> = Array.from(raw);
  for (let i = 0; i < shard.rows; i++) if (!col.isValid(i)) values[i] = null;
  acc.add(values);
}
