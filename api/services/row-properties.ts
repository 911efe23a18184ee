/**
 * The property columns of a legacy search row (/molsearch and friends), shared by the Morgan path
 * (catalog-search.ts) and the 3D path (shape-search.ts) so that both answer the same columns,
 * with the same names and values, for the same molecule.
 */
import { ADMET_NAMES, ADMET_OOD_COLUMN, rowRecord, type ShardData } from '../../engine/catalog/index.ts';
import { DESCRIPTOR_NAMES } from '../../engine/chem/index.ts';
import { oodNames } from '../../engine/admet/predict.ts';

export interface RowColumnsRequest {
  /** The 22 ADMET predictions and `admet_out_of_domain`. */
  properties: boolean;
  /** The 11 descriptors. */
  descriptors: boolean;
}

/**
 * A row's `product_id`, `smiles` and requested property columns, in the client contract's order:
 * the 22 ADMET columns, the 11 descriptors, then `admet_out_of_domain`. `withModels` says whether
 * the row's catalog release has ADMET predictions; without them the ADMET keys are present and null.
 */
export function rowColumns(
  shard: ShardData,
  row: number,
  req: RowColumnsRequest,
  withModels: boolean,
): Record<string, string | number | string[] | null> {
  const withAdmet = req.properties && withModels;
  const rec: Record<string, string | number | string[] | null> = rowRecord(shard, row, [
    'product_id',
    'smiles',
    ...(withAdmet ? ADMET_NAMES : []),
    ...(req.descriptors ? DESCRIPTOR_NAMES : []),
  ]);
  if (req.properties) {
    if (!withAdmet) for (const name of ADMET_NAMES) rec[name] = null;
    // Endpoints whose applicability domain excludes this molecule: flagged, not silently served.
    const col = withAdmet ? shard.table.getChild(ADMET_OOD_COLUMN) : null;
    const ood = col ? (col.get(row) as number | null) : null;
    rec.admet_out_of_domain = ood === null ? null : oodNames(ood);
  }
  return rec;
}

/** The remark of a search with properties=true over a database release without ADMET predictions. */
export function admetRemarks(properties: boolean, dbNames: string[], withModels: (db: string) => boolean) {
  return properties && dbNames.some((d) => !withModels(d))
    ? ['Predicted ADMET properties are not available for this database release.']
    : [];
}
