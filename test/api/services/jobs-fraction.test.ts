// A synthon job's progress fraction (api/services/jobs.ts sliceFraction): the slices' mean, and
// with a 3D scorer the slices as the first half and the 3D stage's products as the second, so
// it no longer reads 1 while the shortlist is still being embedded (a user trial saw 13 minutes
// of "fraction": 1 on a shape-scored job).
import { describe, expect, it } from 'vitest';
import { sliceFraction } from '../../../api/services/jobs.ts';
import type { JobProgress, JobStatus } from '../../../store/jobs.ts';

const job = (progress: JobProgress, params: Record<string, unknown> = {}, status: JobStatus = 'STARTED') => ({
  progress,
  params,
  status,
});
const slices = { slices: { 0: 1, 1: 0.5, 2: 0, 3: 1 }, slicesTotal: 4 };

describe('synthon job fraction', () => {
  it('is the mean of the slices for a Morgan job, and 1 once it succeeded', () => {
    expect(sliceFraction(job(slices, { synthon_scorer: 'morgan' }))).toBe(0.625);
    expect(sliceFraction(job(slices, { synthon_scorer: 'morgan' }, 'SUCCESS'))).toBe(1);
    expect(sliceFraction(job({}))).toBeUndefined();
  });

  it('gives a 3D-scored job half for the slices and half for the products embedded', () => {
    for (const scorer of ['shape', 'esp']) {
      const p = { synthon_scorer: scorer, search_mode: 'similarity' };
      expect(sliceFraction(job(slices, p))).toBe(0.313);
      const all = { slices: { 0: 1, 1: 1, 2: 1, 3: 1 }, slicesTotal: 4 };
      expect(sliceFraction(job(all, p))).toBe(0.5);
      const rerank = { ...all, stage: 'rerank_3d' as const, shardsDone: 100, shardsTotal: 300 };
      expect(sliceFraction(job(rerank, p))).toBe(0.667);
      expect(sliceFraction(job({ ...rerank, shardsDone: 300 }, p, 'SUCCESS'))).toBe(1);
    }
    // Structure modes have no 3D stage, whatever the scorer says.
    expect(sliceFraction(job(slices, { synthon_scorer: 'shape', search_mode: 'substructure' }))).toBe(0.625);
  });
});
