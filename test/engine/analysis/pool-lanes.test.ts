import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { analysisCost, CHEAP_COST, createAnalysisPool } from '../../../engine/analysis/pool.ts';

// Real molecules: the bundled ChEMBL approved drugs.
const drugs = gunzipSync(
  readFileSync(new URL('../../../catalogs/sources/chembl_drugs.smi.gz', import.meta.url)),
)
  .toString('utf8')
  .split('\n')
  .map((l) => l.split(/\s+/)[0])
  .filter(Boolean);
// 500 × 500 Tanimoto cells: heavy by cost, though under 400 ms on an idle machine.
const heavy = () => ({
  op: 'matrix' as const,
  list1: drugs.slice(0, 500),
  list2: drugs.slice(500, 1000),
  searchType: 'morgan',
});
// Exact t-SNE: `endless` (1,000 drugs, 5,000 iterations) is minutes of one thread's CPU on any
// machine, so a 400 ms deadline always finds it running (a 500 × 500 matrix finished inside
// 400 ms on a quiet CI machine).
const tsne = (n: number, nIter: number) => ({
  op: 'map' as const,
  smiles: drugs.slice(0, n),
  method: 'tsne',
  searchType: 'morgan',
  embeddingType: 'bits',
  seed: 1,
  nNeighbors: 15,
  minDist: 0.1,
  nIter,
  maxMolecules: n,
});
const endless = () => tsne(1000, 5000);
const cheap = { op: 'pair' as const, smiles1: 'CCO', smiles2: 'OCC', searchType: 'morgan' };

const pools: ReturnType<typeof createAnalysisPool>[] = [];
afterAll(() => Promise.all(pools.map((p) => p.close())));
const open = (o: Parameters<typeof createAnalysisPool>[0]) => {
  const p = createAnalysisPool(o);
  pools.push(p);
  return p;
};

describe('analysis pool: no request can stall the others', () => {
  it('classes requests by the work they ask for', () => {
    expect(analysisCost(cheap)).toBeLessThanOrEqual(CHEAP_COST);
    expect(analysisCost(heavy())).toBeGreaterThan(CHEAP_COST);
    expect(
      analysisCost({ ...cheap, op: 'batch', query: 'C', list: drugs.slice(0, 100) } as never),
    ).toBeLessThanOrEqual(CHEAP_COST);
  });

  it('answers a cheap request within a bound while three heavy ones are queued or running', async () => {
    const pool = open({ threads: 2 });
    await pool.start();
    // Exact t-SNE of 500 drugs: about a second each even on an idle machine.
    const heavies = [0, 1, 2].map(() => pool.run(tsne(500, 1000)).then(() => Date.now()));
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    const r = await pool.run(cheap);
    const cheapMs = Date.now() - t0;
    expect(r.similarity).toBe(1);
    const firstHeavyDone = Math.min(...(await Promise.all(heavies)));
    // The cheap request did not wait for a heavy one (each takes seconds on this machine).
    expect(t0 + cheapMs).toBeLessThan(firstHeavyDone);
    expect(cheapMs).toBeLessThan(1500);
  });

  it('stops a heavy request at its deadline (its thread is replaced) and withdraws one still queued', async () => {
    const pool = open({ threads: 2, heavyMs: 400 });
    await pool.start();
    const t0 = Date.now();
    const [running, queued] = await Promise.all([
      pool.run(endless()).catch((e: unknown) => e),
      pool.run(endless()).catch((e: unknown) => e),
    ]);
    expect(running).toMatchObject({ code: 'overloaded', message: /ran past its deadline/ });
    expect(queued).toMatchObject({ code: 'overloaded', message: /waited past its deadline/ });
    expect(Date.now() - t0).toBeLessThan(3000);
    // The pool still serves (a fresh thread took the stopped one's slot).
    expect((await pool.run(cheap)).similarity).toBe(1);
  });

  it('withdraws a queued request whose client went away', async () => {
    const pool = open({ threads: 1 });
    await pool.start();
    const blocker = pool.run(heavy());
    const gone = new AbortController();
    const withdrawn = pool.run(cheap, { signal: gone.signal }).catch((e: unknown) => e);
    gone.abort(new Error('client closed the connection'));
    expect(await withdrawn).toMatchObject({ message: 'client closed the connection' });
    await blocker;
  });

  it('frees every RDKit molecule it parses: 120 requests do not grow the thread’s RDKit heap', async () => {
    const pool = open({ threads: 1 });
    await pool.start();
    const list = drugs.slice(0, 40);
    const round = () =>
      Promise.all([
        pool.run({ op: 'batch', query: drugs[7], list, searchType: 'morgan' }),
        pool.run({ op: 'pair', smiles1: drugs[1], smiles2: drugs[2], searchType: 'morgan' }),
        pool.run({ op: 'embeddings', smiles: list, searchType: 'morgan', kind: 'bits', format: 'dense' }),
      ]);
    for (let i = 0; i < 5; i++) await round(); // warm-up: RDKit's own caches
    const heap = async () => (await pool.memory())[0].wasm.rdkit;
    const before = await heap();
    for (let i = 0; i < 40; i++) await round();
    // 40 × 81 molecules left undeleted would add > 50 MB (about 18 KB each).
    expect((await heap()) - before).toBeLessThanOrEqual(4 * 2 ** 20);
    expect(before).toBeGreaterThan(0);
  });
});
