import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRDKit } from '../../../engine/chem/index.ts';
import {
  createFilterContext,
  createFilterPool,
  evaluateFilters,
  QED_THRESHOLD,
  type FilterPool,
} from '../../../engine/filters/index.ts';
import { loadFilterReference } from './reference.ts';

const ref = loadFilterReference();
const smiles = ref.molecules.map((m) => m.canonical);
let pool: FilterPool;
beforeAll(() => {
  pool = createFilterPool({ threads: 2 });
});
afterAll(async () => pool?.close());

describe('filter pool (worker threads)', () => {
  it('withdraws the queued chunks of a request past its deadline or whose client went away', async () => {
    const busy = pool.evaluate(smiles, ['PAINS']);
    const late = await pool
      .evaluate(smiles, ['PAINS'], { deadline: Date.now() + 1 })
      .catch((e: unknown) => e);
    expect(late).toMatchObject({ code: 'overloaded', message: /deadline/ });
    const gone = new AbortController();
    const withdrawn = pool.evaluate(smiles, ['QED'], { signal: gone.signal }).catch((e: unknown) => e);
    gone.abort(new Error('client closed the connection'));
    expect(await withdrawn).toMatchObject({ message: 'client closed the connection' });
    expect((await busy).pass).toHaveLength(smiles.length);
  }, 120_000);

  it('QED filter: keeps QED >= 0.5 and returns Python RDKit QED per candidate', async () => {
    const r = await pool.evaluate(smiles, ['QED']);
    expect(r.pass).toEqual(ref.molecules.map((m) => m.qed >= QED_THRESHOLD));
    r.qed!.forEach((v, i) => expect(v).toBeCloseTo(ref.molecules[i].qed, 6));
  }, 120_000);

  it('PAINS filter: drops exactly the PAINS hits of the reference', async () => {
    const r = await pool.evaluate(smiles, ['PAINS']);
    expect(r.pass).toEqual(ref.molecules.map((m) => m.pains.length === 0));
    expect(r.qed).toBeUndefined();
  }, 120_000);

  it('Substructure keeps candidates containing the query; Superstructure keeps candidates inside it', async () => {
    for (const [qi, query] of ref.substructure_queries.entries()) {
      const sub = await pool.evaluate(smiles, ['Substructure'], { query });
      expect(sub.pass).toEqual(ref.molecules.map((m) => m.contains_query[qi]));
      const sup = await pool.evaluate(smiles, ['Superstructure'], { query });
      expect(sup.pass).toEqual(ref.molecules.map((m) => m.in_query[qi]));
    }
  }, 120_000);

  it('combined filters equal the conjunction, and the threaded result equals the serial one', async () => {
    const filters = ['QED', 'PAINS', 'Substructure', 'Lipinsky', 'No solvents'];
    const r = await pool.evaluate(smiles, filters, { query: 'c1ccccc1' });
    expect(r.pass).toEqual(
      ref.molecules.map((m) => m.qed >= QED_THRESHOLD && m.pains.length === 0 && m.contains_query[0]),
    );
    const serial = evaluateFilters(createFilterContext(await getRDKit()), {
      smiles,
      filters,
      query: 'c1ccccc1',
    });
    expect(r.pass).toEqual([...serial.pass].map((p) => p === 1));
  }, 120_000);

  it('fails an unparsable candidate and rejects an unparsable query with invalid_smiles', async () => {
    const r = await pool.evaluate(['C1CC', 'CCO'], ['QED']);
    expect(r.pass).toEqual([false, false]);
    expect(r.qed![0]).toBeNull();
    expect(r.qed![1]).toBeCloseTo(0.40680796565539457, 6);
    await expect(pool.evaluate(['CCO'], ['Substructure'], { query: 'C1CC' })).rejects.toMatchObject({
      code: 'invalid_smiles',
    });
  }, 60_000);
});
