import { afterAll, describe, expect, it } from 'vitest';
import { chunkCandidates, CHUNK_PAIRS, createShapePool, shapeLane } from '../../../engine/shape/pool.ts';
import { scoreShortlist } from '../../../engine/shape/score.ts';
import type { ConformerSet } from '../../../engine/shape/conformers.ts';
import { molecules } from './support/fixtures.ts';

// 16 drugs with 3 conformers each: a shortlist of 320 of them against a 3-conformer query is
// 2,880 conformer pairs, seconds of CPU (a `very_accurate` or many-query request in miniature).
const mols = molecules();
const many = (n: number, from: number): ConformerSet[] =>
  Array.from({ length: n }, (_, i) => mols[(from + i) % mols.length]);

const pool = createShapePool({ threads: 2 });
afterAll(() => pool.close());

describe('shape pool lanes: a big 3D request cannot stall a small one', () => {
  it('sizes lanes and tasks by the work asked for', () => {
    expect(shapeLane(1, 100)).toBe('interactive'); // `fast`
    expect(shapeLane(3, 100)).toBe('interactive');
    expect(shapeLane(1, 1000)).toBe('bulk'); // `accurate`
    expect(shapeLane(1, Infinity)).toBe('bulk'); // `very_accurate`
    expect(shapeLane(10, 100)).toBe('bulk'); // a 10-molecule centroid
    const c = many(320, 0);
    const chunks = chunkCandidates(10, c, 2, CHUNK_PAIRS);
    expect(chunks[0][0]).toBe(0);
    expect(chunks[chunks.length - 1][1]).toBe(320);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i][0]).toBe(chunks[i - 1][1]);
    for (const [from, to] of chunks)
      expect(c.slice(from, to).reduce((n, m) => n + 10 * m.confCount, 0)).toBeLessThanOrEqual(CHUNK_PAIRS);
    // A small shortlist is still spread over the threads.
    expect(chunkCandidates(3, mols, 2, CHUNK_PAIRS)).toHaveLength(2);
  });

  it('answers a small request while three big ones run, before any of them ends', async () => {
    const ended: number[] = [];
    const big = [0, 1, 2].map((b) =>
      pool
        .scoreShortlist(mols[b], many(320, b), { metric: 'shape', k: 10 }, { lane: shapeLane(1, 320) })
        .then((r) => (ended.push(Date.now()), r)),
    );
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    const small = await pool.scoreShortlist(mols[9], mols, { metric: 'esp', k: 5 }, { lane: 'interactive' });
    const answered = Date.now();
    expect(small).toEqual(scoreShortlist(mols[9], mols, { metric: 'esp', k: 5 }));
    const results = await Promise.all(big);
    expect(answered).toBeLessThan(Math.min(...ended));
    // Generous for a loaded 2-core machine: at most one bulk task (≤ CHUNK_PAIRS pairs) per thread
    // is ahead of it; a FIFO queue would put it after three whole requests.
    expect(answered - t0).toBeLessThan(8000);
    // Bounded tasks change nothing in the answer: a big request equals the serial top k.
    expect(results[1]).toEqual(scoreShortlist(mols[1], many(320, 1), { metric: 'shape', k: 10 }));
  });

  it('withdraws a request at its deadline (queued: 503 overloaded) and on abort', async () => {
    const hog = [0, 1].map((b) =>
      pool.scoreShortlist(mols[b], many(320, b + 3), { metric: 'shape', k: 10 }, { lane: 'bulk' }),
    );
    const t0 = Date.now();
    const late = await pool
      .scoreShortlist(mols[5], many(320, 7), { metric: 'shape', k: 10 }, { lane: 'bulk', deadline: t0 + 100 })
      .catch((e: unknown) => e);
    expect(late).toMatchObject({ code: 'overloaded', retryAfterSeconds: 1, message: /deadline/ });
    expect(Date.now() - t0).toBeLessThan(1500);
    const gone = new AbortController();
    const withdrawn = pool
      .scoreShortlist(
        mols[6],
        many(320, 9),
        { metric: 'shape', k: 10 },
        { lane: 'bulk', signal: gone.signal },
      )
      .catch((e: unknown) => e);
    gone.abort(new Error('client closed the connection'));
    expect(await withdrawn).toMatchObject({ message: 'client closed the connection' });
    await Promise.all(hog);
    // Nothing of the two abandoned requests is left to run.
    expect(pool.stats()).toMatchObject({ busy: 0, queued: 0 });
  });

  it('stops a request running past its deadline and keeps serving', async () => {
    const t0 = Date.now();
    const overdue = await pool
      .scoreShortlist(mols[2], many(640, 0), { metric: 'shape', k: 10 }, { deadline: t0 + 300 })
      .catch((e: unknown) => e);
    expect(overdue).toMatchObject({ code: 'overloaded', message: /deadline/ });
    expect(Date.now() - t0).toBeLessThan(2000);
    // Its sibling tasks share the deadline: their timers fire in the same turn of the loop.
    await new Promise((r) => setTimeout(r, 50));
    expect(pool.stats()).toMatchObject({ busy: 0, queued: 0 });
    // The stopped threads are replaced: the next request is answered exactly.
    expect(await pool.scoreShortlist(mols[3], mols, { metric: 'shape', k: 3 })).toEqual(
      scoreShortlist(mols[3], mols, { metric: 'shape', k: 3 }),
    );
  });
});
