/**
 * What the catalog search service reads from the served catalogs without a k-NN: each catalog's
 * DatabaseInfo, a property column over every row (histograms) and random rows.
 */
import { rowRecord, type Catalog, type ShardData } from '../../engine/catalog/index.ts';
import { servedSearchTypes } from '../../engine/catalog/three-d-schema.ts';
import { analysisToDomain, histogramColumn } from '../../engine/analysis/index.ts';
import type { SearchPool } from '../../engine/search/index.ts';
import { DomainError } from '../../platform/errors.ts';
import type { DatabaseInfo, SearchType } from './search-service.ts';
import { SERVED_SEARCH_TYPES } from './three-d-status.ts';

export function databaseInfo(c: Pick<Catalog, 'manifest'>): DatabaseInfo {
  const m = c.manifest;
  return {
    id: m.id,
    name: m.name,
    vendor: m.vendor,
    website: m.website,
    contact: m.contact,
    release: m.release,
    kind: 'enumerated',
    molecules: m.counts.molecules,
    searchTypes: servedSearchTypes(m).filter((t) => SERVED_SEARCH_TYPES.includes(t)) as SearchType[],
    hasPredictions: Boolean(m.models),
    license: m.license,
    source: m.source,
  };
}

/**
 * Every row's value of a property column of `dbName` (NaN where missing); undefined for an unknown
 * database. `byId` holds the served catalogs: a fleet catalog has only its manifest here.
 */
export function propertyValues(
  pool: SearchPool,
  byId: ReadonlyMap<string, Pick<Catalog, 'manifest'>>,
  dbName: string,
  column: string,
): Float64Array | undefined {
  try {
    histogramColumn(column, 'properties');
  } catch (err) {
    throw analysisToDomain(err);
  }
  const c = byId.get(dbName);
  if (!c) return undefined;
  // Every row of a column: the API holds no shard of a fleet catalog (a scan, not a fan-out).
  if (!('shardPath' in c))
    throw new DomainError(
      'capability_unavailable',
      `property histograms over ${dbName}, a catalog held by the scan fleet, are not available`,
    );
  const out = new Float64Array(c.manifest.counts.molecules).fill(NaN);
  let at = 0;
  c.manifest.shards.forEach((meta, s) => {
    const shard = pool.shard(dbName, s) as ShardData;
    const col = shard.table.getChild(column);
    if (col) {
      const raw = col.toArray() as Float64Array | Float32Array;
      for (let i = 0; i < shard.rows; i++) out[at + i] = col.nullCount && !col.isValid(i) ? NaN : raw[i];
    }
    at += meta.rows;
  });
  return out;
}

/** `n` rows drawn uniformly (with replacement) over every row of the held catalogs. */
export function randomRows(pool: SearchPool, catalogs: Catalog[], n: number) {
  const total = catalogs.reduce((s, c) => s + c.manifest.counts.molecules, 0);
  const out: { smiles: string; id: string; database: string }[] = [];
  for (let i = 0; i < n && total > 0; i++) {
    let r = Math.floor(Math.random() * total);
    for (const c of catalogs) {
      if (r >= c.manifest.counts.molecules) {
        r -= c.manifest.counts.molecules;
        continue;
      }
      let s = 0;
      while (r >= c.manifest.shards[s].rows) r -= c.manifest.shards[s++].rows;
      const rec = rowRecord(pool.shard(c.manifest.id, s) as ShardData, r, ['smiles', 'product_id']);
      out.push({ smiles: String(rec.smiles), id: String(rec.product_id), database: c.manifest.id });
      break;
    }
  }
  return out;
}
