import type { ResultRow } from './rows.ts';

/** In-place sorting and filtering of a result set (no request to the service). */
export interface RangeFilter {
  key: string;
  min: string;
  max: string;
}

export interface View {
  sortKey: string;
  descending: boolean;
  text: string;
  ranges: RangeFilter[];
}

const valueOf = (r: ResultRow, key: string): number | string | null =>
  key === 'id' ? r.id : key === 'database' ? r.database : (r.values[key] ?? null);

export function applyView(rows: ResultRow[], v: View): ResultRow[] {
  const text = v.text.trim().toLowerCase();
  const ranges = v.ranges
    .map((f) => ({
      key: f.key,
      min: f.min === '' ? -Infinity : Number(f.min),
      max: f.max === '' ? Infinity : Number(f.max),
    }))
    .filter((f) => !Number.isNaN(f.min) && !Number.isNaN(f.max));
  const kept = rows.filter((r) => {
    if (text && !r.id.toLowerCase().includes(text) && !r.smiles.toLowerCase().includes(text)) return false;
    for (const f of ranges) {
      const x = r.values[f.key];
      if (typeof x !== 'number' || x < f.min || x > f.max) return false;
    }
    return true;
  });
  if (!v.sortKey) return kept;
  const sign = v.descending ? -1 : 1;
  // Missing values sort last in both directions.
  return [...kept].sort((a, b) => {
    const x = valueOf(a, v.sortKey);
    const y = valueOf(b, v.sortKey);
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    return sign * (x < y ? -1 : x > y ? 1 : 0);
  });
}
