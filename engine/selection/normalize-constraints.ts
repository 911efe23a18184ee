/**
 * Normalization of a selection's property and price constraints (normalize.ts calls these). Ids the
 * released SDK sends (`rdkit.mol_wt`, ...) become the service's ids, so an SDK document and the
 * same intent written with the service's names normalize, and hash, alike.
 */
import type { Checker, Loc } from './check.ts';
import { acceptedPropertyIds, canonicalPropertyId, PROPERTY_UNITS } from './property-ids.ts';
import {
  FIDELITIES,
  MISSING_POLICIES,
  PRICE_AMOUNTS_MG,
  PRICE_CURRENCIES,
  PRICE_MISSING_POLICIES,
  PRICE_SHIP_TO,
  PROPERTY_OPERATORS,
  type LibraryFacts,
  type PriceConstraint,
  type PropertyConstraint,
} from './spec.ts';

/** One entry of constraints.properties, its property id resolved to the service's id. */
export function propertyConstraint(
  c: Checker,
  v: unknown,
  loc: Loc,
  lib: LibraryFacts,
): PropertyConstraint | undefined {
  const o = c.object(v, loc, [
    'type',
    'property_id',
    'operator',
    'value',
    'units',
    'missing',
    'required_fidelity',
  ]);
  if (!o) return undefined;
  if (o.type !== undefined) c.oneOf(o.type, [...loc, 'type'], ['property']);
  const named = c.oneOf(o.property_id, [...loc, 'property_id'], acceptedPropertyIds(lib.property_ids));
  const property_id = named === undefined ? undefined : canonicalPropertyId(named);
  const operator = c.oneOf(o.operator, [...loc, 'operator'], PROPERTY_OPERATORS);
  let value: PropertyConstraint['value'] | undefined;
  if (operator === 'range') {
    const r = c.object(o.value, [...loc, 'value'], ['lower', 'upper']);
    const lower = r && c.number(r.lower, [...loc, 'value', 'lower']);
    const upper = r && c.number(r.upper, [...loc, 'value', 'upper']);
    if (lower !== undefined && upper !== undefined) {
      if (upper < lower) c.add([...loc, 'value'], 'upper must be at least lower');
      value = { lower, upper };
    }
  } else if (operator) value = c.number(o.value, [...loc, 'value']);
  const missing =
    o.missing === undefined ? 'reject' : c.oneOf(o.missing, [...loc, 'missing'], MISSING_POLICIES);
  const fidelity =
    o.required_fidelity === undefined
      ? 'exact_product'
      : c.oneOf(o.required_fidelity, [...loc, 'required_fidelity'], FIDELITIES);
  const units =
    o.units === undefined || o.units === null ? undefined : c.string(o.units, [...loc, 'units'], 50);
  const known = property_id === undefined ? undefined : PROPERTY_UNITS[property_id];
  if (units !== undefined && known && !known.includes(units))
    c.add(
      [...loc, 'units'],
      `${property_id} is computed in ${known.map((u) => JSON.stringify(u)).join(' or ')}; the service does not convert units`,
      'value_error.units',
    );
  if (!property_id || !operator || value === undefined || !missing || !fidelity) return undefined;
  return {
    type: 'property',
    property_id,
    operator,
    value,
    ...(units ? { units } : {}),
    missing,
    required_fidelity: fidelity,
  };
}

/**
 * constraints.price, as the SDK's `max_price` sends it: `{max, currency, amount_mg, ship_to,
 * missing}`. Catalog prices are list prices in whole USD, read as the SDK's basis (1 mg delivered
 * to the US); another currency, amount or destination would need a conversion the service does not
 * have, so it is refused naming the field. `missing` defaults to `reject`: a product without a
 * price is not known to cost at most `max`, so a price bound excludes it unless the client keeps it.
 */
export function priceConstraint(c: Checker, v: unknown, loc: Loc): PriceConstraint | undefined {
  const o = c.object(v, loc, ['max', 'currency', 'amount_mg', 'ship_to', 'missing']);
  if (!o) return undefined;
  const max = c.number(o.max, [...loc, 'max']);
  if (max !== undefined && max < 0) c.add([...loc, 'max'], 'must be at least 0', 'value_error.range');
  const basis = (key: string, allowed: readonly (string | number)[], why: string) => {
    const x = o[key];
    if (x === undefined || x === null || allowed.includes(x as string | number)) return;
    c.add(
      [...loc, key],
      `must be ${allowed.map((a) => JSON.stringify(a)).join(' or ')}: ${why}`,
      'value_error.enum',
    );
  };
  basis('currency', PRICE_CURRENCIES, 'catalog prices are in USD and are not converted');
  basis('amount_mg', PRICE_AMOUNTS_MG, 'catalog prices are per 1 mg and are not rescaled');
  basis('ship_to', PRICE_SHIP_TO, 'catalog prices are for delivery to the US only');
  const missing =
    o.missing === undefined || o.missing === null
      ? 'reject'
      : c.oneOf(o.missing, [...loc, 'missing'], PRICE_MISSING_POLICIES);
  if (max === undefined || max < 0 || !missing) return undefined;
  return { max, currency: 'USD', amount_mg: 1, ship_to: 'US', missing };
}

/**
 * Members the released SDK can send that this service cannot honour, with why: a client gets a
 * 422 naming the member and the reason instead of "unknown field". Keyed by the enclosing object.
 */
const UNSUPPORTED: Record<string, Record<string, string>> = {
  constraints: {
    // Selection.where_predicted_property: a range on an assembled-product teacher model.
    predicted_properties:
      'assembled-product teacher-model constraints are not offered by this service; the ADMET predictions a catalog stores are constrained through constraints.properties with their ids (GET /api/v2/catalog: predicted_properties)',
  },
  execution: {
    // Selection.acquire_predicted_property: CP16 preselection followed by the teacher model.
    acquisition:
      'predicted-property acquisition is not offered by this service; rank by similarity and constrain stored ADMET predictions with constraints.properties',
  },
};

/**
 * `v` without the members of UNSUPPORTED[name], each present one reported at `loc` with its
 * reason (the rest is then checked as usual, so a typo still gets the allowed-fields message).
 */
export function withoutUnsupported(c: Checker, v: unknown, loc: Loc, name: string): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const rest: Record<string, unknown> = { ...(v as Record<string, unknown>) };
  for (const [key, why] of Object.entries(UNSUPPORTED[name] ?? {}))
    if (key in rest) {
      c.add([...loc, key], why, 'value_error.unsupported');
      delete rest[key];
    }
  return rest;
}
