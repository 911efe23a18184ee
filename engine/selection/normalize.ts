/**
 * Normalization of a molecule-selection/1 document: validates it (unknown fields rejected, every
 * problem reported with its JSON path), fills defaults, resolves preset versions and the database
 * release, and orders set-like members canonically, so that the same intent always yields the same
 * normalized document and therefore the same selection hash.
 */
import { createChecker, type Checker, type Loc } from './check.ts';
import { priceConstraint, propertyConstraint, withoutUnsupported } from './normalize-constraints.ts';
import {
  DEFAULT_PORTFOLIO_LIMIT,
  DIRECTIONS,
  INCLUDE_VALUES,
  MAX_CONDITIONS,
  MAX_PORTFOLIO_LIMIT,
  MAX_REFERENCES,
  MAX_SHORTLIST_MULTIPLIER,
  METRIC_IDS,
  OBJECTIVE_TYPES,
  PRESETS,
  QUALITIES,
  QUALITY_MULTIPLIER,
  RELATIONSHIP_OPERATORS,
  RELATIONSHIP_TYPES,
  SAMPLE_DISTRIBUTIONS,
  SCAFFOLD_METHODS,
  SELECTION_SCHEMA_VERSION,
  STRATEGY_TYPES,
  STRUCTURE_FORMATS,
  STRUCTURE_RELATIONS,
  type IncludeValue,
  type LibraryFacts,
  type NormalizedSelection,
  type Objective,
  type PresetId,
  type PropertyConstraint,
  type Reference,
  type Relationship,
  type StructureCondition,
  type StructureQuery,
} from './spec.ts';

const TOP_KEYS = [
  'schema_version',
  'database',
  'strategy',
  'references',
  'objectives',
  'constraints',
  'execution',
  'include',
  'portfolio',
] as const;

const byKey =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

function structureQuery(c: Checker, v: unknown, loc: Loc): StructureQuery | undefined {
  const o = c.object(v, loc, ['format', 'value']);
  if (!o) return undefined;
  const format = o.format === undefined ? 'smiles' : c.oneOf(o.format, [...loc, 'format'], STRUCTURE_FORMATS);
  const value = c.string(o.value, [...loc, 'value'], 1000);
  return format && value ? { format, value } : undefined;
}

function condition(c: Checker, v: unknown, loc: Loc): StructureCondition | undefined {
  const o = c.object(v, loc, ['type', 'id', 'pattern_id', 'query', 'relation', 'count']);
  if (!o) return undefined;
  if (o.type !== undefined) c.oneOf(o.type, [...loc, 'type'], ['structure']);
  const id = c.string(o.id, [...loc, 'id'], 200);
  const query = structureQuery(c, o.query, [...loc, 'query']);
  const relation =
    o.relation === undefined ? 'contains' : c.oneOf(o.relation, [...loc, 'relation'], STRUCTURE_RELATIONS);
  let count: StructureCondition['count'] = { min: 1 };
  if (o.count !== undefined) {
    const co = c.object(o.count, [...loc, 'count'], ['min', 'max']);
    const min = co?.min === undefined ? 1 : c.integer(co.min, [...loc, 'count', 'min'], 0, 1000);
    const max =
      co?.max === undefined || co.max === null
        ? undefined
        : c.integer(co.max, [...loc, 'count', 'max'], 0, 1000);
    if (min !== undefined && max !== undefined && max < min)
      c.add([...loc, 'count'], 'max must be at least min');
    count = max === undefined ? { min: min ?? 1 } : { min: min ?? 1, max };
  }
  const pattern_id =
    o.pattern_id === undefined || o.pattern_id === null
      ? undefined
      : c.string(o.pattern_id, [...loc, 'pattern_id'], 200);
  if (!id || !query || !relation) return undefined;
  return { type: 'structure', id, ...(pattern_id ? { pattern_id } : {}), query, relation, count };
}

function conditions(c: Checker, v: unknown, loc: Loc): StructureCondition[] {
  if (v === undefined) return [];
  const list = c.array(v, loc, MAX_CONDITIONS) ?? [];
  return list
    .map((x, i) => condition(c, x, [...loc, i]))
    .filter((x): x is StructureCondition => !!x)
    .sort(byKey((s) => s.id));
}

/**
 * Validates `doc` against molecule-selection/1 for the library `lib` and returns the normalized
 * document. Throws a validation_error DomainError listing every issue (loc starts with `root`).
 * Pure and deterministic: parsing of SMILES/SMARTS is checked later by the executor.
 */
export function normalizeSelection(
  doc: unknown,
  lib: LibraryFacts,
  root: Loc = ['body'],
): NormalizedSelection {
  const c = createChecker(root);
  const d = c.object(doc, [], TOP_KEYS) ?? {};
  if (d.schema_version !== undefined)
    c.oneOf(d.schema_version, ['schema_version'], [SELECTION_SCHEMA_VERSION]);

  const db = c.object(d.database, ['database'], ['database_id', 'release_id']);
  const release =
    db?.release_id === undefined || db.release_id === null
      ? lib.release
      : c.string(db.release_id, ['database', 'release_id'], 200);
  if (release !== undefined && release !== lib.release)
    c.add(
      ['database', 'release_id'],
      `release ${JSON.stringify(release)} is not served; the current release is ${lib.release}`,
      'value_error.release',
    );

  const st = c.object(d.strategy, ['strategy'], ['type', 'distribution']);
  const strategyType = st ? c.oneOf(st.type, ['strategy', 'type'], STRATEGY_TYPES) : undefined;
  const strategy: NormalizedSelection['strategy'] = { type: strategyType ?? 'ranked' };
  if (strategyType === 'sample')
    strategy.distribution =
      st?.distribution === undefined
        ? 'route_product_tuple'
        : c.oneOf(st.distribution, ['strategy', 'distribution'], SAMPLE_DISTRIBUTIONS);
  else if (st?.distribution !== undefined)
    c.add(['strategy', 'distribution'], 'only a sample strategy takes a distribution');

  const references: Reference[] = [];
  const refIds = new Set<string>();
  (d.references === undefined ? [] : (c.array(d.references, ['references'], MAX_REFERENCES) ?? [])).forEach(
    (r, i) => {
      const o = c.object(r, ['references', i], ['id', 'structure']);
      const id = o && c.string(o.id, ['references', i, 'id'], 200);
      const structure = o && structureQuery(c, o.structure, ['references', i, 'structure']);
      if (id && refIds.has(id))
        c.add(['references', i, 'id'], `duplicate reference id ${JSON.stringify(id)}`);
      if (id && structure) {
        if (structure.format !== 'smiles')
          c.add(
            ['references', i, 'structure', 'format'],
            'a reference must be a SMILES molecule (smarts references can only be structure queries)',
          );
        refIds.add(id);
        references.push({ id, structure });
      }
    },
  );
  const refExists = (id: string | undefined, loc: Loc) => {
    if (id !== undefined && !refIds.has(id))
      c.add(
        loc,
        `unknown reference ${JSON.stringify(id)}; references: ${[...refIds].join(', ') || '(none)'}`,
        'value_error.reference',
      );
  };

  const objectives: Objective[] = [];
  (d.objectives === undefined ? [] : (c.array(d.objectives, ['objectives'], 10) ?? [])).forEach((v, i) => {
    const loc: Loc = ['objectives', i];
    const o = c.object(v, loc, ['type', 'direction', 'metric_id', 'reference_id']);
    if (!o) return;
    const type = o.type === undefined ? 'similarity' : c.oneOf(o.type, [...loc, 'type'], OBJECTIVE_TYPES);
    if (o.direction === 'minimize')
      c.add([...loc, 'direction'], 'direction minimize is not supported; use maximize', 'value_error.enum');
    const direction =
      o.direction === undefined || o.direction === 'minimize'
        ? 'maximize'
        : c.oneOf(o.direction, [...loc, 'direction'], DIRECTIONS);
    const metric_id = c.oneOf(o.metric_id, [...loc, 'metric_id'], METRIC_IDS);
    const reference_id = c.string(o.reference_id, [...loc, 'reference_id'], 200);
    refExists(reference_id, [...loc, 'reference_id']);
    if (type && direction && metric_id && reference_id)
      objectives.push({ type, direction, metric_id, reference_id });
  });
  objectives.sort(byKey((o) => `${o.metric_id}\u0000${o.reference_id}`));
  if (strategy.type === 'ranked' && !objectives.length && !c.issues.length)
    c.add(['objectives'], 'a ranked selection needs at least one objective', 'value_error.missing');

  const cons =
    d.constraints === undefined
      ? {}
      : (c.object(
          withoutUnsupported(c, d.constraints, ['constraints'], 'constraints'),
          ['constraints'],
          ['presets', 'properties', 'reactions', 'relationships', 'structures', 'price'],
        ) ?? {});
  const presets: NormalizedSelection['constraints']['presets'] = [];
  (cons.presets === undefined ? [] : (c.array(cons.presets, ['constraints', 'presets'], 10) ?? [])).forEach(
    (v, i) => {
      const loc: Loc = ['constraints', 'presets', i];
      const o = c.object(v, loc, ['preset_id', 'version']);
      const id = o && c.oneOf(o.preset_id, [...loc, 'preset_id'], Object.keys(PRESETS) as PresetId[]);
      if (!o || !id) return;
      const preset = PRESETS[id];
      const version =
        o.version === undefined || o.version === null || o.version === 'latest'
          ? preset.latest
          : c.oneOf(o.version, [...loc, 'version'], [...Object.keys(preset.versions), 'latest']);
      if (version && !presets.some((p) => p.preset_id === id && p.version === version))
        presets.push({ preset_id: id, version });
    },
  );
  presets.sort(byKey((p) => `${p.preset_id}@${p.version}`));
  const properties = (
    cons.properties === undefined
      ? []
      : (c.array(cons.properties, ['constraints', 'properties'], MAX_CONDITIONS) ?? [])
  )
    .map((v, i) => propertyConstraint(c, v, ['constraints', 'properties', i], lib))
    .filter((x): x is PropertyConstraint => !!x)
    .sort(byKey((p) => `${p.property_id}\u0000${p.operator}\u0000${JSON.stringify(p.value)}`));
  const reactions =
    cons.reactions === undefined ? [] : (c.array(cons.reactions, ['constraints', 'reactions'], 0) ?? []);
  const relationships: Relationship[] = [];
  (cons.relationships === undefined
    ? []
    : (c.array(cons.relationships, ['constraints', 'relationships'], 10) ?? [])
  ).forEach((v, i) => {
    const loc: Loc = ['constraints', 'relationships', i];
    const o = c.object(v, loc, ['type', 'method_id', 'operator', 'reference_id']);
    if (!o) return;
    const type = c.oneOf(o.type ?? 'scaffold_relation', [...loc, 'type'], RELATIONSHIP_TYPES);
    const method_id = c.oneOf(o.method_id ?? 'rdkit.bemis_murcko', [...loc, 'method_id'], SCAFFOLD_METHODS);
    const operator = c.oneOf(o.operator, [...loc, 'operator'], RELATIONSHIP_OPERATORS);
    const reference_id = c.string(o.reference_id, [...loc, 'reference_id'], 200);
    refExists(reference_id, [...loc, 'reference_id']);
    if (type && method_id && operator && reference_id)
      relationships.push({ type, method_id, operator, reference_id });
  });
  relationships.sort(byKey((r) => `${r.reference_id}\u0000${r.operator}`));
  const so =
    cons.structures === undefined
      ? {}
      : (c.object(cons.structures, ['constraints', 'structures'], ['all', 'any', 'none']) ?? {});
  const anyObj =
    so.any === undefined
      ? {}
      : (c.object(so.any, ['constraints', 'structures', 'any'], ['conditions', 'minimum']) ?? {});
  const anyConds = conditions(c, anyObj.conditions, ['constraints', 'structures', 'any', 'conditions']);
  const minimum =
    anyObj.minimum === undefined
      ? anyConds.length
        ? 1
        : 0
      : c.integer(anyObj.minimum, ['constraints', 'structures', 'any', 'minimum'], 0, MAX_CONDITIONS);
  if (minimum !== undefined && minimum > anyConds.length)
    c.add(
      ['constraints', 'structures', 'any', 'minimum'],
      `minimum ${minimum} exceeds the ${anyConds.length} conditions`,
    );
  const price =
    cons.price === undefined || cons.price === null
      ? undefined
      : priceConstraint(c, cons.price, ['constraints', 'price']);
  const structures = {
    all: conditions(c, so.all, ['constraints', 'structures', 'all']),
    any: { conditions: anyConds, minimum: minimum ?? 0 },
    none: conditions(c, so.none, ['constraints', 'structures', 'none']),
  };

  const ex =
    d.execution === undefined
      ? {}
      : (c.object(
          withoutUnsupported(c, d.execution, ['execution'], 'execution'),
          ['execution'],
          ['quality', 'seed', 'shortlist_multiplier'],
        ) ?? {});
  const quality =
    ex.quality === undefined ? 'fast' : (c.oneOf(ex.quality, ['execution', 'quality'], QUALITIES) ?? 'fast');
  const seed =
    ex.seed === undefined || ex.seed === null
      ? 0
      : (c.integer(ex.seed, ['execution', 'seed'], 0, 2 ** 32 - 1) ?? 0);
  const multiplier =
    ex.shortlist_multiplier === undefined || ex.shortlist_multiplier === null
      ? QUALITY_MULTIPLIER[quality]
      : (c.integer(
          ex.shortlist_multiplier,
          ['execution', 'shortlist_multiplier'],
          1,
          MAX_SHORTLIST_MULTIPLIER,
        ) ?? 10);

  const include = [
    ...new Set(
      (d.include === undefined ? [] : (c.array(d.include, ['include'], 10) ?? []))
        .map((v, i) => c.oneOf(v, ['include', i], INCLUDE_VALUES))
        .filter((x): x is IncludeValue => !!x),
    ),
  ].sort();

  const po =
    d.portfolio === undefined
      ? {}
      : (c.object(d.portfolio, ['portfolio'], ['limit', 'max_per_scaffold']) ?? {});
  const limit =
    po.limit === undefined
      ? DEFAULT_PORTFOLIO_LIMIT
      : (c.integer(po.limit, ['portfolio', 'limit'], 1, MAX_PORTFOLIO_LIMIT) ?? DEFAULT_PORTFOLIO_LIMIT);
  const maxPer =
    po.max_per_scaffold === undefined || po.max_per_scaffold === null
      ? undefined
      : c.integer(po.max_per_scaffold, ['portfolio', 'max_per_scaffold'], 1, MAX_PORTFOLIO_LIMIT);

  c.fail();
  return {
    schema_version: SELECTION_SCHEMA_VERSION,
    database: { database_id: lib.database_id, release_id: lib.release },
    strategy,
    references: references.sort(byKey((r) => r.id)),
    objectives,
    constraints: {
      presets,
      properties,
      reactions: reactions as Record<string, unknown>[],
      relationships,
      structures,
      ...(price ? { price } : {}),
    },
    execution: { quality, seed, shortlist_multiplier: multiplier },
    include,
    portfolio: maxPer === undefined ? { limit } : { limit, max_per_scaffold: maxPer },
  };
}

/** The database id a document names (for choosing the library before normalization). */
export function selectionDatabaseId(doc: unknown, root: Loc = ['body']): string {
  const c = createChecker(root);
  const d = c.object(doc, [], TOP_KEYS);
  const db = d && c.object(d.database, ['database'], ['database_id', 'release_id']);
  const id = db && c.string(db.database_id, ['database', 'database_id'], 200);
  if (d && d.strategy === undefined) c.add(['strategy'], 'field required', 'value_error.missing');
  c.fail();
  return id!;
}
