/** The constraint_execution report of validation and of the execution plan: how each constraint runs. */
import { isComputedProperty } from './property-ids.ts';
import type { NormalizedSelection } from './spec.ts';

const RDKIT_MATCH = 'RDKit substructure match on each candidate';

/** One entry per constraint, in document order, with where it is evaluated (pushdown or post-filter). */
export function constraintExecution(
  sel: NormalizedSelection,
): { path: string; status: string; message: string }[] {
  const out: { path: string; status: string; message: string }[] = [];
  sel.constraints.presets.forEach((p, i) =>
    out.push({
      path: `$.constraints.presets[${i}]`,
      status: 'exact_pushdown',
      message: `${p.preset_id}@${p.version} evaluated exactly on stored descriptors before candidate generation`,
    }),
  );
  sel.constraints.properties.forEach((p, i) =>
    out.push(
      isComputedProperty(p.property_id)
        ? {
            path: `$.constraints.properties[${i}]`,
            status: 'exact_postfilter',
            message: `${p.property_id} ${p.operator} computed with RDKit on each candidate (the catalog does not store it)`,
          }
        : {
            path: `$.constraints.properties[${i}]`,
            status: 'exact_pushdown',
            message: `${p.property_id} ${p.operator} evaluated exactly on stored values before candidate generation`,
          },
    ),
  );
  if (sel.constraints.price)
    out.push({
      path: '$.constraints.price',
      status: 'exact_pushdown',
      message: `list price <= ${sel.constraints.price.max} USD before candidate generation; unpriced products ${sel.constraints.price.missing === 'keep' ? 'kept' : 'excluded'}`,
    });
  const s = sel.constraints.structures;
  for (const [key, list] of [
    ['all', s.all],
    ['any.conditions', s.any.conditions],
    ['none', s.none],
  ] as const)
    list.forEach((_, i) =>
      out.push({
        path: `$.constraints.structures.${key}[${i}]`,
        status: 'exact_postfilter',
        message: RDKIT_MATCH,
      }),
    );
  sel.constraints.relationships.forEach((_, i) =>
    out.push({
      path: `$.constraints.relationships[${i}]`,
      status: 'exact_postfilter',
      message: 'RDKit Bemis-Murcko scaffold compared on each candidate',
    }),
  );
  return out;
}
