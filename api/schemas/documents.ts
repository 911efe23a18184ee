/**
 * JSON schemas of the molecule-selection/1 and run/1 documents, for `/openapi.json`. The service
 * validates these documents itself (engine/selection: normalize.ts, run-document.ts), reporting
 * every problem with its JSON path; these schemas describe the same rules, built from the same
 * closed sets, and a test checks they accept what the validator accepts (test/api/schemas/).
 */
import { Type, type TSchema } from '@sinclair/typebox';
import {
  DIRECTIONS,
  FAILURE_POLICIES,
  FIDELITIES,
  INCLUDE_VALUES,
  MAX_CONDITIONS,
  MAX_PORTFOLIO_LIMIT,
  MAX_REFERENCES,
  MAX_SHORTLIST_MULTIPLIER,
  METRIC_IDS,
  MISSING_POLICIES,
  OBJECTIVE_TYPES,
  PRESETS,
  PROPERTY_OPERATORS,
  QUALITIES,
  QUALITY_MULTIPLIER,
  RELATIONSHIP_OPERATORS,
  RELATIONSHIP_TYPES,
  RUN_KINDS,
  RUN_LIMITS,
  RUN_SCHEMA_VERSION,
  SAMPLE_DISTRIBUTIONS,
  SCAFFOLD_METHODS,
  SELECTION_SCHEMA_VERSION,
  STRATEGY_TYPES,
  STRUCTURE_FORMATS,
  STRUCTURE_RELATIONS,
  DESCRIPTOR_PROPERTY_IDS,
} from '../../engine/selection/index.ts';

const closed = { additionalProperties: false } as const;
const enumOf = (values: readonly string[], description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );
/** A non-blank string (the validator trims it). */
const Text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, pattern: '\\S', description });
const Int = (minimum: number, maximum: number, description?: string) =>
  Type.Integer({ minimum, maximum, description });
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

const StructureQuery = Type.Object(
  {
    format: Type.Optional(enumOf(STRUCTURE_FORMATS, 'default smiles')),
    value: Text(1000, 'SMILES, or SMARTS for structure conditions'),
  },
  closed,
);
const Reference = Type.Object(
  { id: Text(200), structure: StructureQuery },
  { ...closed, description: 'A query molecule (SMILES); ids are unique' },
);
const Objective = Type.Object(
  {
    type: Type.Optional(enumOf(OBJECTIVE_TYPES)),
    direction: Type.Optional(enumOf(DIRECTIONS)),
    metric_id: enumOf(METRIC_IDS, 'cheese.* metrics validate but need the shape capability'),
    reference_id: Text(200, 'id of one of references'),
  },
  closed,
);
const PropertyConstraint = Type.Object(
  {
    type: Type.Optional(Type.Literal('property')),
    property_id: Text(
      200,
      `A property the library evaluates exactly: ${DESCRIPTOR_PROPERTY_IDS.join(', ')}, and its predicted ADMET properties when it has them`,
    ),
    operator: enumOf(PROPERTY_OPERATORS),
    value: Type.Union([
      Type.Number(),
      Type.Object(
        { lower: Type.Number(), upper: Type.Number() },
        { ...closed, description: 'operator range' },
      ),
    ]),
    units: Type.Optional(Nullable(Text(50))),
    missing: Type.Optional(enumOf(MISSING_POLICIES, 'default reject')),
    required_fidelity: Type.Optional(enumOf(FIDELITIES)),
  },
  closed,
);
const StructureCondition = Type.Object(
  {
    type: Type.Optional(Type.Literal('structure')),
    id: Text(200),
    pattern_id: Type.Optional(Nullable(Text(200))),
    query: StructureQuery,
    relation: Type.Optional(enumOf(STRUCTURE_RELATIONS)),
    count: Type.Optional(
      Type.Object({ min: Type.Optional(Int(0, 1000)), max: Type.Optional(Nullable(Int(0, 1000))) }, closed),
    ),
  },
  closed,
);
const Conditions = Type.Array(StructureCondition, { maxItems: MAX_CONDITIONS });
const Constraints = Type.Object(
  {
    presets: Type.Optional(
      Type.Array(
        Type.Object(
          {
            preset_id: enumOf(Object.keys(PRESETS)),
            version: Type.Optional(Nullable(Type.String({ description: "a version or 'latest' (default)" }))),
          },
          closed,
        ),
        { maxItems: 10 },
      ),
    ),
    properties: Type.Optional(Type.Array(PropertyConstraint, { maxItems: MAX_CONDITIONS })),
    reactions: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 0, description: 'reserved' })),
    relationships: Type.Optional(
      Type.Array(
        Type.Object(
          {
            type: Type.Optional(enumOf(RELATIONSHIP_TYPES)),
            method_id: Type.Optional(enumOf(SCAFFOLD_METHODS)),
            operator: enumOf(RELATIONSHIP_OPERATORS),
            reference_id: Text(200),
          },
          closed,
        ),
        { maxItems: 10 },
      ),
    ),
    structures: Type.Optional(
      Type.Object(
        {
          all: Type.Optional(Conditions),
          any: Type.Optional(
            Type.Object(
              { conditions: Type.Optional(Conditions), minimum: Type.Optional(Int(0, MAX_CONDITIONS)) },
              closed,
            ),
          ),
          none: Type.Optional(Conditions),
        },
        closed,
      ),
    ),
  },
  closed,
);

/** molecule-selection/1: what to select from one library, ranked by objectives or sampled. */
export const SelectionDocumentSchema = Type.Object(
  {
    schema_version: Type.Optional(Type.Literal(SELECTION_SCHEMA_VERSION)),
    database: Type.Object(
      {
        database_id: Text(200, 'see GET /api/v2/catalog'),
        release_id: Type.Optional(Nullable(Text(200, 'default: the current release'))),
      },
      closed,
    ),
    strategy: Type.Object(
      { type: enumOf(STRATEGY_TYPES), distribution: Type.Optional(enumOf(SAMPLE_DISTRIBUTIONS)) },
      closed,
    ),
    references: Type.Optional(Type.Array(Reference, { maxItems: MAX_REFERENCES })),
    objectives: Type.Optional(
      Type.Array(Objective, { maxItems: 10, description: 'a ranked selection needs at least one' }),
    ),
    constraints: Type.Optional(Constraints),
    execution: Type.Optional(
      Type.Object(
        {
          quality: Type.Optional(enumOf(QUALITIES, 'default fast')),
          seed: Type.Optional(Nullable(Int(0, 2 ** 32 - 1))),
          shortlist_multiplier: Type.Optional(
            Nullable(
              Int(
                1,
                MAX_SHORTLIST_MULTIPLIER,
                `default by quality: ${Object.entries(QUALITY_MULTIPLIER)
                  .map(([q, m]) => `${q} ${m}`)
                  .join(', ')}`,
              ),
            ),
          ),
        },
        closed,
      ),
    ),
    include: Type.Optional(Type.Array(enumOf(INCLUDE_VALUES), { maxItems: 10 })),
    portfolio: Type.Optional(
      Type.Object(
        {
          limit: Type.Optional(Int(1, MAX_PORTFOLIO_LIMIT, 'default 100; at most 200 synchronously')),
          max_per_scaffold: Type.Optional(Nullable(Int(1, MAX_PORTFOLIO_LIMIT))),
        },
        closed,
      ),
    ),
  },
  {
    ...closed,
    description:
      'A molecule-selection/1 document. Every problem is reported with its JSON path (422 validation_error); unknown fields are rejected.',
  },
);

/** run/1: a durable run of one selection, or of a template applied to up to 1000 items. */
export const RunDocumentSchema = Type.Object(
  {
    schema_version: Type.Optional(Type.Literal(RUN_SCHEMA_VERSION)),
    kind: enumOf(RUN_KINDS),
    selection: Type.Optional(SelectionDocumentSchema),
    selection_template: Type.Optional(SelectionDocumentSchema),
    items: Type.Optional(
      Type.Array(
        Type.Object(
          { id: Text(128, 'unique within the run'), references: Type.Array(Reference, { maxItems: 100 }) },
          closed,
        ),
        {
          minItems: 1,
          maxItems: RUN_LIMITS.maxItems,
          description: 'kind selection_batch: each item is the template with these references',
        },
      ),
    ),
    failure_policy: Type.Optional(enumOf(FAILURE_POLICIES)),
    metadata: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 1000 }), { maxProperties: 50 }),
    ),
  },
  {
    ...closed,
    description: `A run/1 document: kind selection takes selection; kind selection_batch takes selection_template and items. At most ${RUN_LIMITS.maxHitsPerItem} hits per item and ${RUN_LIMITS.maxTotalHits} in all (413 beyond).`,
  },
);
