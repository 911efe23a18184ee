import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createSubstructureRunner } from '../../../engine/substructure/index.ts';
import type { Library } from '../../../engine/selection/index.ts';
import { drugsLibrary } from '../../../testkit/drugs-library.ts';

// Reference matches from Python RDKit on the canonical SMILES (scripts/reference/v2_selection_reference.py).
const REF = JSON.parse(
  readFileSync(new URL('../../fixtures/v2/selection-reference.json', import.meta.url), 'utf8'),
) as {
  substructure: Record<string, { count: number; first: { id: string; atoms: number[] }[] }>;
};

let lib: Library;
const runner = createSubstructureRunner();
const smiles = () => Array.from({ length: lib.size }, (_, i) => lib.smiles(i));
beforeAll(async () => {
  lib = await drugsLibrary();
}, 120_000);
afterAll(() => runner.close());

describe('substructure runner', () => {
  for (const [smarts, ref] of Object.entries(REF.substructure)) {
    it(`finds the molecules and atoms RDKit finds for ${smarts}, first scan and indexed rescan alike`, async () => {
      for (let pass = 0; pass < 2; pass++) {
        const r = await runner.scan('drugs', smiles, {
          format: 'smarts',
          query: smarts,
          limit: 5000,
          timeoutMs: 60_000,
        });
        if ('invalidQuery' in r) throw new Error('query rejected');
        expect(r.timedOut).toBe(false);
        expect(r.hits.length).toBe(ref.count);
        expect(r.hits.slice(0, 5).map((h) => ({ id: lib.productId(h.row), atoms: h.atoms }))).toEqual(
          ref.first,
        );
        if (pass === 1) expect(r.prefiltered).toBeGreaterThan(0);
      }
    });
  }

  it('stops at the limit', async () => {
    const r = await runner.scan('drugs', smiles, {
      format: 'smarts',
      query: 'c1ccccc1',
      limit: 3,
      timeoutMs: 60_000,
    });
    expect('hits' in r && r.hits.length).toBe(3);
  });

  it('honours the timeout with partial results', async () => {
    const r = await runner.scan('drugs-cold', smiles, {
      format: 'smarts',
      query: '[#6]~[#6]~[#6]~[#6]~[#6]~[#6]~[#6]~[#8]',
      limit: 5000,
      timeoutMs: 1,
    });
    if ('invalidQuery' in r) throw new Error('query rejected');
    expect(r.timedOut).toBe(true);
    expect(r.scanned).toBeLessThan(lib.size);
  });

  it('finds the same matches with a tiny index budget, holding no more than it allows', async () => {
    const small = createSubstructureRunner({ threads: 1, indexBytes: 50_000 });
    try {
      const [smarts, ref] = Object.entries(REF.substructure)[0];
      for (let pass = 0; pass < 2; pass++) {
        const r = await small.scan('drugs', smiles, {
          format: 'smarts',
          query: smarts,
          limit: 5000,
          timeoutMs: 60_000,
        });
        if ('invalidQuery' in r) throw new Error('query rejected');
        expect(r.hits.length).toBe(ref.count);
        expect(r.hits.slice(0, 5).map((h) => ({ id: lib.productId(h.row), atoms: h.atoms }))).toEqual(
          ref.first,
        );
      }
    } finally {
      await small.close();
    }
  }, 120_000);

  it('reports an unparsable query', async () => {
    expect(
      await runner.scan('drugs', smiles, { format: 'smarts', query: 'C1CC[', limit: 5, timeoutMs: 1000 }),
    ).toEqual({ invalidQuery: true });
  });
});

/**
 * Scheduling (issue 15, part 2): one thread, three expensive scans running, and a cheap query is
 * still answered within its deadline; deadlines count from the call (queue included); a scan whose
 * deadline passed or whose client went away leaves no work behind on the thread.
 */
describe('substructure scheduling on one thread', () => {
  // A 46-atom chain of heavy atoms: 2 of the 1,203 drugs match, and proving that the others do
  // not is an exhaustive search (about 1.2 s cold; ~0.25 s warm and indexed on an idle 2-core
  // machine: deadlines meant to cut a scan short are 50 ms, five times below that).
  const SLOW = Array(46).fill('[!#1]').join('~');
  const one = createSubstructureRunner({ threads: 1, sliceMs: 25 });
  afterAll(() => one.close());
  const idle = async () => {
    await new Promise((r) => setTimeout(r, 100));
    return one.stats();
  };

  beforeAll(async () => {
    // Warm: the thread has RDKit, the library and its index, as in a running service.
    await one.scan('drugs', smiles, { format: 'smarts', query: SLOW, limit: 5000, timeoutMs: 120_000 });
  }, 180_000);

  it('answers a cheap query within its 500 ms deadline while three expensive scans run', async () => {
    const slow = [0, 1, 2].map(() =>
      one.scan('drugs', smiles, { format: 'smarts', query: SLOW, limit: 5000, timeoutMs: 30_000 }),
    );
    await new Promise((r) => setTimeout(r, 150));
    expect(one.stats().busy + one.stats().queued).toBeGreaterThan(0); // they are running
    const t0 = Date.now();
    const cheap = await one.scan('drugs', smiles, {
      format: 'smarts',
      query: '[#6]=[#8]',
      limit: 5,
      timeoutMs: 500,
    });
    const took = Date.now() - t0;
    expect('hits' in cheap && cheap.timedOut).toBe(false);
    expect('hits' in cheap && cheap.hits.length).toBe(5);
    expect(took).toBeLessThan(1000); // behind three 1.2 s scans before slicing
    for (const r of await Promise.all(slow)) expect('hits' in r && r.timedOut).toBe(false);
  }, 60_000);

  it('counts the deadline from the call: a scan whose time ran out while queued does no work', async () => {
    // One 5 s slice holds the thread, so the second scan certainly waits in the queue: the slow
    // scan runs over the drugs four times over (about 1 s warm on an idle machine, where one copy
    // took ~0.25 s and could end inside the 200 ms deadline).
    const wide = createSubstructureRunner({ threads: 1, sliceMs: 5000 });
    const x4 = () => {
      const s = smiles();
      return [...s, ...s, ...s, ...s];
    };
    try {
      await wide.scan('drugs-x4', x4, { format: 'smarts', query: 'C', limit: 1, timeoutMs: 120_000 });
      const slow = wide.scan('drugs-x4', x4, {
        format: 'smarts',
        query: SLOW,
        limit: 5000,
        timeoutMs: 30_000,
      });
      await new Promise((r) => setTimeout(r, 50));
      const t0 = Date.now();
      const r = await wide.scan('drugs-x4', x4, {
        format: 'smarts',
        query: '[#6]=[#8]',
        limit: 5,
        timeoutMs: 200,
      });
      expect(Date.now() - t0).toBeLessThan(1000); // not after the running slice
      expect('hits' in r && r.timedOut).toBe(true);
      expect('hits' in r && r.scanned).toBe(0);
      expect(wide.stats().queued).toBe(0); // withdrawn
      await slow;
    } finally {
      await wide.close();
    }
  }, 120_000);

  it('stops a timed-out scan: partial results at the deadline, nothing left on the thread', async () => {
    const t0 = Date.now();
    const r = await one.scan('drugs', smiles, { format: 'smarts', query: SLOW, limit: 5000, timeoutMs: 50 });
    expect(Date.now() - t0).toBeLessThan(1500); // a cold whole scan takes over 1 s
    expect('hits' in r && r.timedOut).toBe(true);
    expect('hits' in r && r.scanned).toBeLessThan(lib.size);
    expect(await idle()).toMatchObject({ busy: 0, queued: 0 });
  }, 60_000);

  it('withdraws the scan of a client that went away', async () => {
    const gone = new AbortController();
    const p = one.scan('drugs', smiles, {
      format: 'smarts',
      query: SLOW,
      limit: 5000,
      timeoutMs: 30_000,
      signal: gone.signal,
    });
    await new Promise((r) => setTimeout(r, 100));
    gone.abort(new Error('client closed the connection'));
    await expect(p).rejects.toThrow(/client closed/);
    expect(await idle()).toMatchObject({ busy: 0, queued: 0 });
  }, 60_000);
});
