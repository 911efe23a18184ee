/** What the selection tests share: the released SDK's property condition, and a 422's issues. */
import { expect } from 'vitest';
import { DomainError } from '../../platform/errors.ts';

/** What deepmedchem 0.4.0b5's Selection.where sends for one condition (subsets.py, selection.py). */
export const sdkWhere = (property_id: string, units: string, operator: string, value: unknown) => ({
  type: 'property',
  property_id,
  operator,
  value,
  units,
  required_fidelity: 'exact_product',
  missing: 'reject',
});

/** The issues (`path` = loc joined by '/', `msg`) of the DomainError `fn` throws; fails if none. */
export function issuesOf(fn: () => unknown): { path: string; msg: string }[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as DomainError).issues.map((i) => ({ path: i.loc.join('/'), msg: i.msg }));
  }
  throw new Error('expected a validation error');
}
