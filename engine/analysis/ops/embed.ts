/** Embeddings of SMILES lists (Morgan bits or counts) and their centroid. */
import type { RDKitModule } from '../../chem/rdkit.ts';
import { centroidOf, EMBEDDING_KINDS, MORGAN_DIMENSIONS, type EmbeddingKind } from '../embed/embeddings.ts';
import { AnalysisError } from '../errors.ts';
import { ANALYSIS_LIMITS } from '../limits.ts';
import { metricFor } from '../similarity/metrics.ts';
import { parseList } from './molecules.ts';

export const EMBEDDING_FORMATS = ['dense', 'sparse'] as const;
export type EmbeddingFormat = (typeof EMBEDDING_FORMATS)[number];

/** Checks `embedding_type`; throws `invalid_parameter` listing the kinds. */
export function embeddingKind(value: string, field = 'embedding_type'): EmbeddingKind {
  if ((EMBEDDING_KINDS as readonly string[]).includes(value)) return value as EmbeddingKind;
  throw new AnalysisError(
    'invalid_parameter',
    field,
    `${JSON.stringify(value)} is not an embedding type; allowed: ${EMBEDDING_KINDS.join(', ')}`,
  );
}

/** Checks `format`; throws `invalid_parameter` listing the formats. */
function embeddingFormat(value: string, field = 'format'): EmbeddingFormat {
  if ((EMBEDDING_FORMATS as readonly string[]).includes(value)) return value as EmbeddingFormat;
  throw new AnalysisError(
    'invalid_parameter',
    field,
    `${JSON.stringify(value)} is not a format; allowed: ${EMBEDDING_FORMATS.join(', ')}`,
  );
}

/** Dense: the vector as numbers; sparse: {index: value} of its non-zero entries. */
function formatted(v: ArrayLike<number>, format: EmbeddingFormat): number[] | Record<string, number> {
  if (format === 'dense') return Array.from(v);
  const sparse: Record<string, number> = {};
  for (let j = 0; j < v.length; j++) if (v[j] !== 0) sparse[j] = v[j];
  return sparse;
}

export interface EmbeddingsAnswer {
  dimensions: number;
  canonical_smiles: (string | null)[];
  /** Dense: the vector; sparse: {index: value} of its non-zero entries; null for a bad row. */
  embeddings: (number[] | Record<string, number> | null)[];
  errors: (string | null)[];
}

export function embeddings(
  rd: RDKitModule,
  smiles: string[],
  searchType: string,
  kind: string,
  format: string,
): EmbeddingsAnswer {
  metricFor(searchType);
  const k = embeddingKind(kind);
  const f = embeddingFormat(format);
  const list = parseList(rd, smiles, 'search_input', ANALYSIS_LIMITS.syncMolecules, k);
  const out: EmbeddingsAnswer['embeddings'] = smiles.map(() => null);
  list.valid.forEach((i, r) => {
    out[i] = formatted(list.vectors[r], f);
  });
  return {
    dimensions: MORGAN_DIMENSIONS,
    canonical_smiles: list.canonical,
    embeddings: out,
    errors: list.errors,
  };
}

export interface CentroidAnswer {
  dimensions: number;
  n_molecules: number;
  /** Dense: the mean vector; sparse: {index: value} of its non-zero entries. */
  centroid: number[] | Record<string, number>;
  errors: (string | null)[];
}

export function centroid(
  rd: RDKitModule,
  smiles: string[],
  searchType: string,
  kind: string,
  format = 'dense',
): CentroidAnswer {
  metricFor(searchType);
  const f = embeddingFormat(format);
  const list = parseList(rd, smiles, 'search_input', ANALYSIS_LIMITS.syncMolecules, embeddingKind(kind));
  if (list.valid.length === 0)
    throw new AnalysisError('empty_input', 'search_input', 'none of the SMILES could be parsed');
  return {
    dimensions: MORGAN_DIMENSIONS,
    n_molecules: list.valid.length,
    centroid: formatted(centroidOf(list.vectors), f),
    errors: list.errors,
  };
}
