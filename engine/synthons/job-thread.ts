// Thread entry of the synthon job pool: opens a space the first time a slice names it, then runs slices.
import { join } from 'node:path';
import { getRDKit } from '../chem/rdkit.ts';
import { serveThread } from '../threads/thread.ts';
import { openSpace, type OpenSpace } from './space.ts';
import { synthonJobSlice } from './job-search.ts';
import type { JobSliceReply, JobSliceRequest } from './job-pool.ts';

serveThread<JobSliceRequest, JobSliceReply>(async (data) => {
  const rd = await getRDKit();
  const { spaceDir } = data as { spaceDir: string };
  const spaces = new Map<string, Promise<OpenSpace>>();
  const get = (id: string): Promise<OpenSpace> => {
    let s = spaces.get(id);
    if (!s) {
      s = openSpace(join(spaceDir, id));
      spaces.set(id, s);
      s.catch(() => spaces.delete(id));
    }
    return s;
  };
  return {
    info: { spaceDir },
    async handle(req) {
      const cell = req.progress ? new Int32Array(req.progress) : undefined;
      const report = cell && ((f: number) => Atomics.store(cell, 0, Math.round(Math.min(1, f) * 1e6)));
      const space = await get(req.space);
      if (cell) Atomics.store(cell, 1, 1);
      return { result: synthonJobSlice(rd, space, req.slice, report) };
    },
  };
});
