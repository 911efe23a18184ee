/**
 * The constraints that are not plain stored-column tests: the price bound (a pushdown over each
 * row's list price) and properties the catalogs do not store (fraction_csp3, num_aromatic_rings),
 * which are computed with RDKit on each candidate, after candidate generation, like structure
 * conditions. Values equal Python RDKit's (engine/chem graph descriptors, checked in its tests).
 */
import { DomainError } from '../../platform/errors.ts';
import type { RDKitModule, RDKitMol } from '../chem/index.ts';
import { describeMolecule } from '../chem/graph-descriptors.ts';
import type { Library } from './library.ts';
import { isComputedProperty, type ComputedPropertyId } from './property-ids.ts';
import type { PriceConstraint } from './spec.ts';

/** Whether a list price (null: unpriced) satisfies the bound. */
export const pricePasses = (c: PriceConstraint, price: number | null): boolean =>
  price === null ? c.missing === 'keep' : price <= c.max;

/**
 * Clears `mask` rows whose price fails `c`. Throws capability_unavailable when no row of `lib` has a
 * price: every answer would then be "no molecule" (or every molecule, with `keep`), which says
 * nothing about price, so the client is told why instead.
 */
export function applyPriceMask(lib: Library, c: PriceConstraint, mask: Uint8Array): PriceScan {
  let priced = 0;
  let within = 0;
  let cheapest = Infinity;
  for (let r = 0; r < lib.size; r++) {
    const p = lib.price(r);
    if (p !== null) {
      priced++;
      if (p <= c.max) within++;
      if (p < cheapest) cheapest = p;
    }
    if (mask[r] && !pricePasses(c, p)) mask[r] = 0;
  }
  if (!priced && lib.size) throw new DomainError('capability_unavailable', unpricedMessage(lib));
  return { within, cheapest };
}

/** Over the whole library: products priced at most the bound, and the lowest price. */
export interface PriceScan {
  within: number;
  cheapest: number;
}

/** The SDK README's price_unattainable warning: a bound below every price of the library. */
export function priceWarning(
  c: PriceConstraint | undefined,
  scan: PriceScan | undefined,
): { code: string; message: string } | undefined {
  if (!c || !scan || scan.within > 0) return undefined;
  return {
    code: 'price_unattainable',
    message: `no product is priced at most ${c.max} USD; the cheapest costs ${scan.cheapest} USD${c.missing === 'keep' ? ' (only unpriced products can be returned)' : ''}`,
  };
}

/**
 * Why a price bound cannot apply to `lib` (a synthon space, whose products carry no price, or a
 * catalog where no row has one), or undefined when one can. A space's facts library has no rows to
 * read, so its kind decides.
 */
export function priceCapabilityGap(lib: Library): string | undefined {
  if (lib.info.kind === 'synthon')
    return `$.constraints.price: ${lib.info.database_id} is a synthon space whose products carry no price, so a price bound cannot be applied; remove constraints.price`;
  for (let r = 0; r < lib.size; r++) if (lib.price(r) !== null) return undefined;
  return unpricedMessage(lib);
}

const unpricedMessage = (lib: Library) =>
  `$.constraints.price: ${lib.info.database_id} lists no prices (pricing.available is false in GET /api/v2/catalog), so a price bound cannot be applied; remove constraints.price`;

/** The property tests left for the candidates: computed properties the library does not store. */
export const postfilterTests = <T extends { property_id: string }>(lib: Library, tests: T[]): T[] =>
  tests.filter((t) => !lib.column(t.property_id) && isComputedProperty(t.property_id));

/** The computed properties of one molecule, or undefined when RDKit cannot parse it. */
export function computedProperties(
  rd: RDKitModule,
  smiles: string,
): Record<ComputedPropertyId, number> | undefined {
  // Only the graph descriptors (parseMolecule's, without its fingerprint, mol block and scaffold).
  let mol: RDKitMol | null = null;
  try {
    mol = rd.get_mol(smiles);
    if (!mol?.is_valid()) return undefined;
    const { extras } = describeMolecule(mol);
    return { fraction_csp3: extras.fraction_csp3, num_aromatic_rings: extras.num_aromatic_rings };
  } catch {
    return undefined;
  } finally {
    mol?.delete();
  }
}
