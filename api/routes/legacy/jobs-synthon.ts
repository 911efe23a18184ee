import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import type { SynthonJobService } from '../../services/synthon-jobs.ts';
import { BoolParam, SAMPLE_SMILES } from './params.ts';

const enumOf = <T extends readonly string[]>(values: T, def: T[number], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { default: def, description },
  );

export const SYNTHON_QUALITIES = ['fast', 'accurate', 'very_accurate', '100', '1000', '10000'] as const;
export const SYNTHON_SCORERS = ['shape', 'esp', 'morgan'] as const;
export const SYNTHON_SEARCH_MODES = ['similarity', 'substructure', 'superstructure'] as const;
export const STRUCTURE_MATCH_MODES = ['fuzzy', 'exact'] as const;
export const SMARTS_PREFILTER_MODES = ['include', 'exclude'] as const;
export const SYNTHON_BACKENDS = ['exact_sss'] as const;

const SynthonQuery = Type.Object({
  search_input: Type.String({
    default: SAMPLE_SMILES,
    description: 'Query molecule (SMILES; SMARTS allowed for substructure modes)',
  }),
  db_name: Type.Optional(Type.String({ description: 'A synthon database identifier' })),
  search_quality: enumOf(SYNTHON_QUALITIES, '100', 'Wanted hit count (100, 1000, 10000) or a quality name'),
  include_properties: BoolParam(true, 'Include predicted properties'),
  include_metadata: BoolParam(false, 'Include reaction metadata'),
  include_synthons: BoolParam(false, 'Recorded; pages and downloads add the synthon columns on request'),
  synthon_scorer: enumOf(
    SYNTHON_SCORERS,
    'shape',
    'Scorer of similarity mode: morgan (Morgan Tanimoto), or shape (the default) and esp: the best search_quality × 3 products by Morgan (at most 1000) are embedded in 3D by the chem3d worker and ranked by the exact shape or ESP score; 503 with Retry-After when no 3D worker runs',
  ),
  search_mode: enumOf(SYNTHON_SEARCH_MODES, 'similarity', 'Search mode'),
  structure_match_mode: enumOf(
    STRUCTURE_MATCH_MODES,
    'fuzzy',
    'exact: matches (substructure, superstructure, SMARTS prefilter) respect chirality; fuzzy: they do not',
  ),
  smarts_prefilter_pattern_id: Type.String({ default: '', description: 'A pattern id of /smarts_patterns' }),
  smarts_prefilter_pattern_label: Type.String({
    default: '',
    description: 'A pattern label of /smarts_patterns (used when no id or SMARTS is given)',
  }),
  smarts_prefilter_pattern_smarts: Type.String({
    default: '',
    description: 'A SMARTS (wins over id and label)',
  }),
  smarts_prefilter_mode: enumOf(
    SMARTS_PREFILTER_MODES,
    'include',
    'Keep (include) or drop (exclude) products matching the SMARTS',
  ),
  synthon_search_backend: enumOf(SYNTHON_BACKENDS, 'exact_sss', 'Search backend'),
  sample_size: Type.Integer({
    default: 100,
    minimum: 1,
    maximum: 100_000,
    description: 'Hits wanted (older clients; used when search_quality is not sent)',
  }),
});

/**
 * POST /submit_synthongpt_job: every parameter in the query string, `{}` body; answers the job
 * name as a bare JSON string (like /submit_molsearch). The job runs as a Temporal workflow over
 * the space's reactions; /job_status, /job_info, /get_molsearch_page and downloads serve it.
 */
export function registerSynthonJobRoute(app: App, synthonJobs: SynthonJobService): void {
  app.post(
    '/submit_synthongpt_job',
    {
      schema: {
        tags: ['legacy jobs'],
        summary:
          'Submit a synthon-space job (similarity, substructure or superstructure); answers the job name',
        querystring: SynthonQuery,
        body: Type.Optional(Type.Object({}, { additionalProperties: true })),
        response: { 200: Type.String() },
      },
    },
    async (request, reply) => {
      // Both have defaults, so which one the client sent decides the wanted hit count.
      const sent = new URLSearchParams((request.raw.url ?? '').split('?')[1] ?? '');
      const name = await synthonJobs.submit(request.account.id, request.query, {
        searchQuality: sent.has('search_quality'),
        sampleSize: sent.has('sample_size'),
      });
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(name));
    },
  );
}
