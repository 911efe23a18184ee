/** Helpers of the analysis route tests: query strings, GETs with a key, 422 checks, the Python reference. */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { ApiHarness } from '../../../../support/api-harness.ts';

/** test/fixtures/analysis-reference.json: RDKit, scikit-learn and numpy values (scripts/reference). */
export const analysisRef = JSON.parse(
  readFileSync(new URL('../../../../fixtures/analysis-reference.json', import.meta.url), 'utf8'),
) as {
  set_a: { smiles: string[] };
  set_b: { smiles: string[] };
  similarity: { queries: number; values: number[][] };
  morgan_counts: { smiles: string; counts: Record<string, number> }[];
  butina: { threshold: number; clusters: number[][] }[];
  pca_bits: { coords: number[][]; explained_variance_ratio: number[] };
  histogram: Record<string, { counts: number[]; edges: number[] }>;
};

export type Params = Record<string, string | number | (string | number)[]>;

export const qs = (params: Params) =>
  Object.entries(params)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${encodeURIComponent(String(x))}`))
    .join('&');

export const getWith = (h: ApiHarness, path: string, params: Params, key = h.key) =>
  h.app.inject({ method: 'GET', url: `${path}?${qs(params)}`, headers: { 'X-API-Key': key } });

/** A FastAPI-shaped 422 whose first issue names `["query", field]` (and has `type`, when given). */
export function expect422(res: { statusCode: number; json(): unknown }, field: string, type?: string) {
  expect(res.statusCode).toBe(422);
  const detail = (res.json() as { detail: { loc: string[]; type: string }[] }).detail;
  expect(detail[0].loc).toEqual(['query', field]);
  if (type) expect(detail[0].type).toBe(type);
}
