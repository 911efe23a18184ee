import { call, type QueryValue } from '../http/client.ts';
import type { Highlight } from '../chem/protocol.ts';

/**
 * One shape for every kind of result the pages show (a /molsearch neighbour, a v2 hit, a job
 * page row): identity, structure, and every numeric value under its API key.
 */
export interface ResultRow {
  key: string;
  smiles: string;
  id: string;
  database: string;
  score: number | null;
  values: Record<string, number | null>;
  highlight?: Highlight;
  flags?: Record<string, boolean>;
}

export interface SearchParams {
  smiles: string;
  databases: string[];
  mode: string;
  quality?: string;
  n: number;
  filters: string[];
  ordering?: string;
  descriptors: boolean;
  properties: boolean;
  /** Substructure mode: the query is SMARTS rather than SMILES. */
  smarts?: boolean;
}

export interface SearchResult {
  rows: ResultRow[];
  query: string;
  remarks: string[];
  mode: string;
  elapsedMs: number;
}

export const SUBSTRUCTURE = 'substructure';
const IDENTITY = new Set(['smiles', 'id', 'database', 'db_id', 'similarity']);

const LABELS: Record<string, string> = {
  similarity: 'Similarity',
  molecular_weight: 'MW',
  clogp: 'cLogP',
  topological_surface_area_mapping: 'TPSA',
  h_bond_acceptors: 'HBA',
  h_bond_donor: 'HBD',
  rotatable_bonds: 'Rotatable bonds',
  num_of_rings: 'Rings',
  heavy_atoms: 'Heavy atoms',
  number_of_atoms: 'Atoms',
  formal_charge: 'Formal charge',
  molar_refractivity: 'Molar refractivity',
  score: 'Score',
};

/** A readable name for an API value key ('caco2_wang' → 'caco2 wang'). */
export const labelOf = (key: string) => LABELS[key] ?? key.replace(/_/g, ' ');

/** The numeric keys present in any row, score keys first, then descriptors, then the rest. */
export function numericColumns(rows: ResultRow[]): string[] {
  const seen = new Set<string>();
  for (const r of rows) for (const [k, v] of Object.entries(r.values)) if (typeof v === 'number') seen.add(k);
  const order = (k: string) =>
    k === 'similarity' || k === 'score' ? 0 : /[A-Z]/.test(k[0]) ? 1 : k in LABELS ? 2 : 3;
  return [...seen].sort((a, b) => order(a) - order(b));
}

export function rowFromNeighbor(n: Record<string, unknown>, i: number): ResultRow {
  const values: Record<string, number | null> = {};
  for (const [k, v] of Object.entries(n)) if (typeof v === 'number' && !IDENTITY.has(k)) values[k] = v;
  values.similarity = n.similarity as number;
  return {
    key: `${n.database}/${n.id}/${i}`,
    smiles: String(n.smiles),
    id: String(n.id),
    database: String(n.database),
    score: n.similarity as number,
    values,
  };
}

async function legacySearch(p: SearchParams): Promise<Omit<SearchResult, 'elapsedMs' | 'mode'>> {
  const query: Record<string, QueryValue> = {
    search_input: p.smiles,
    search_type: p.mode,
    search_quality: p.quality,
    db_names: p.databases,
    n_neighbors: p.n,
    descriptors: p.descriptors,
    properties: p.properties,
    filter_molecules: p.filters.length > 0,
    filtering: p.filters.length ? p.filters : undefined,
    ordering: p.ordering,
  };
  const body = await call<{
    neighbors: Record<string, unknown>[];
    canonicalized_query: string;
    remarks: string;
  }>('/molsearch', { query });
  return {
    rows: body.neighbors.map(rowFromNeighbor),
    query: body.canonicalized_query,
    remarks: body.remarks ? [body.remarks] : [],
  };
}

interface V2Hit {
  rank: number;
  smiles: string;
  product_id: string;
  score: number | null;
  matched_atom_indices?: number[];
  matched_bond_indices?: number[];
  properties?: Record<string, number | null>;
  predicted_properties?: Record<string, number | null>;
}

/** v2 substructure search of each selected database, merged (matched atoms come with each hit). */
async function substructureSearch(p: SearchParams): Promise<Omit<SearchResult, 'elapsedMs' | 'mode'>> {
  const answers = await Promise.all(
    p.databases.map((db) =>
      call<{ results: V2Hit[]; warnings: { message: string }[]; database_id: string }>(
        '/api/v2/search_substructure',
        {
          method: 'POST',
          body: {
            query: { format: p.smarts ? 'smarts' : 'smiles', value: p.smiles },
            database_id: db,
            limit: p.n,
            timeout_seconds: 20,
          },
        },
      ),
    ),
  );
  const rows = answers.flatMap((a) =>
    a.results.map((h, i) => ({
      key: `${a.database_id}/${h.product_id}/${i}`,
      smiles: h.smiles,
      id: h.product_id,
      database: a.database_id,
      score: h.score,
      values: { ...(h.properties ?? {}), ...(h.predicted_properties ?? {}) },
      highlight: { atoms: h.matched_atom_indices ?? [], bonds: h.matched_bond_indices ?? [] },
    })),
  );
  return { rows, query: p.smiles, remarks: answers.flatMap((a) => a.warnings.map((w) => w.message)) };
}

export async function runSearch(p: SearchParams): Promise<SearchResult> {
  const t0 = performance.now();
  const r = p.mode === SUBSTRUCTURE ? await substructureSearch(p) : await legacySearch(p);
  return { ...r, mode: p.mode, elapsedMs: performance.now() - t0 };
}
