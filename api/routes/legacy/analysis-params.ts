/** Parameters and schema helpers shared by the analysis routes (similarity, embeddings, clusters, maps). */
import { Type, type TSchema } from '@sinclair/typebox';
import { validationError } from '../../../platform/errors.ts';

export const TAGS = {
  search: ['legacy search'],
  similarity: ['legacy similarity'],
  embeddings: ['legacy embeddings'],
  clustering: ['legacy clustering'],
  maps: ['legacy maps'],
  histograms: ['legacy histograms'],
  other: ['legacy other'],
};

/** `search_type` of an analysis route: morgan today; 3D types answer a 422 naming search_type. */
export const SearchTypeParam = Type.String({
  default: 'morgan',
  description:
    'morgan (Morgan radius 2, 2048 bits, Tanimoto); the 3D types are not available for this operation',
});

/** search_type of the embedding operations, which also take the 3D types. */
export const EmbeddingSearchTypeParam = Type.String({
  default: 'morgan',
  description:
    'morgan, or espsim_shape / espsim_electrostatic (3D: the conformers’ first-stage vectors; needs the chem3d worker, 503 without it)',
});

/** A repeated SMILES parameter (a single value is accepted). */
export const SmilesList = (description: string) => Type.Array(Type.String(), { description });

/** The schema with an OpenAPI example. */
export function ex<T extends TSchema>(schema: T, example: unknown): T {
  return Object.assign(schema, { examples: [example] });
}

/** The trimmed list; 422 naming `field` when it is empty or longer than `max`. */
export function nonEmptyList(values: string[] | undefined, field: string, max: number): string[] {
  const list = (values ?? []).map((s) => s.trim());
  if (list.length === 0 || list.every((s) => s === ''))
    throw validationError(['query', field], 'at least one SMILES is required', 'value_error.empty_input');
  if (list.length > max)
    throw validationError(
      ['query', field],
      `at most ${max} molecules per call, got ${list.length}`,
      'value_error.too_large',
    );
  return list;
}

/** 202: the input is above the synchronous limit and runs as an analysis job. */
export const JobStartedSchema = ex(
  Type.Object(
    {
      status: Type.Literal('PENDING'),
      job_name: Type.String(),
      mode: Type.Literal('job'),
      message: Type.String(),
    },
    { description: 'Started as a job: poll /job_status, then GET /analysis_result' },
  ),
  {
    status: 'PENDING',
    job_name: 'job_01JD5Q5Z6W3Y8K2M4N6P8R0T2V',
    mode: 'job',
    message:
      'above the synchronous limit: poll /job_status?job_name=job_01JD5Q5Z6W3Y8K2M4N6P8R0T2V, then GET /analysis_result?job_name=job_01JD5Q5Z6W3Y8K2M4N6P8R0T2V',
  },
);

/** These operations compare Morgan fingerprints; the 3D types are not offered for them. */
export function requireMorgan(searchType: string): void {
  if (searchType !== 'morgan')
    throw validationError(
      ['query', 'search_type'],
      `search_type ${JSON.stringify(searchType)} is not available for this operation; allowed: morgan`,
      'value_error.unknown_metric',
    );
}
