import { beforeAll, describe, expect, it } from 'vitest';
import { getRDKit, type RDKitModule } from '../../../engine/chem/index.ts';
import { createIndex, indexBytes, parseQuery, scanSubstructure } from '../../../engine/substructure/index.ts';
import { chemblDrugs } from '../../../testkit/drugs-library.ts';

let rd: RDKitModule;
const smiles = chemblDrugs().map((m) => m.smiles);
beforeAll(async () => {
  rd = await getRDKit();
}, 60_000);

describe('substructure index memory budget', () => {
  it('stops indexing at the budget and still matches every row', () => {
    const q = parseQuery(rd, 'smarts', 'c1ccccc1')!;
    try {
      const full = createIndex(smiles);
      const a = scanSubstructure(rd, full, q, 5000, Date.now() + 60_000);
      const budget = { used: 0, max: 20_000 };
      const bounded = createIndex(smiles, budget);
      const b = scanSubstructure(rd, bounded, q, 5000, Date.now() + 60_000);
      expect(b.hits.map((h) => h.row)).toEqual(a.hits.map((h) => h.row));
      // The budget is checked before each row: at most one row (< 2 KB) past it.
      expect(budget.used).toBeLessThan(budget.max + 2048);
      expect(indexBytes(bounded)).toBe(budget.used);
      expect(indexBytes(full)).toBeGreaterThan(10 * budget.max);
    } finally {
      q.delete();
    }
  }, 60_000);
});
