// Thread entry of the space pool: opens every space once, then answers searches and samples.
import { getRDKit } from '../chem/rdkit.ts';
import { serveThread } from '../threads/thread.ts';
import { openSpace, type OpenSpace } from './space.ts';
import { similarityTopK } from './similarity-topk.ts';
import { distinctTopK } from './similarity-distinct.ts';
import { sampleSpace } from './sample.ts';
import { rerankMorgan } from './rerank.ts';
import { substructureSearch } from './substructure.ts';
import { warmUp } from './warm-up.ts';
import { prepareSimilarity } from './prepare.ts';
import type { SpaceReply, SpaceRequest } from './space-pool.ts';

serveThread<SpaceRequest, SpaceReply>(async (data) => {
  const rd = await getRDKit();
  const spaces = new Map<string, OpenSpace>();
  for (const dir of (data as { dirs: string[] }).dirs) {
    const s = await openSpace(dir);
    spaces.set(s.manifest.id, s);
  }
  const warm = warmUp(rd, [...spaces.values()]);
  // The query-independent part of similarity search, done while the thread is idle (prepare.ts),
  // so that no user's first query pays it; requests are served in between.
  const prepared = new Set<string>();
  const prepare = (s: OpenSpace): void => {
    if (prepared.has(s.manifest.id)) return;
    prepared.add(s.manifest.id);
    // A failure here is a search's to report: the search computes the same on first use.
    prepareSimilarity(s, undefined, rd).catch(() => prepared.delete(s.manifest.id));
  };
  spaces.forEach(prepare);
  const get = (id: string): OpenSpace => {
    const s = spaces.get(id);
    if (!s) throw new Error(`space ${id} is not loaded`);
    return s;
  };
  return {
    info: { spaces: [...spaces.keys()], warmUp: warm },
    async handle(req) {
      // A space built after this thread started arrives with its directory.
      if (!spaces.has(req.space) && req.dir) {
        const s = await openSpace(req.dir);
        spaces.set(s.manifest.id, s);
        prepare(s);
      }
      if (req.op === 'open') {
        const r = get(req.space).reactions;
        return {
          op: 'open',
          result: {
            synthons: r.reduce((n, x) => n + x.slots.reduce((m, s) => m + s.synthonIds.length, 0), 0),
          },
        };
      }
      if (req.op === 'similarity') {
        const top = req.distinct ? distinctTopK : similarityTopK;
        const r = top(rd, get(req.space), req.fp, req.k, { timeoutMs: req.timeoutMs });
        return { op: 'similarity', result: r };
      }
      if (req.op === 'sample')
        return { op: 'sample', result: sampleSpace(rd, get(req.space), req.n, req.seed) };
      if (req.op === 'rerank')
        return { op: 'rerank', result: rerankMorgan(rd, get(req.space), req.fp, req.opts) };
      const result = substructureSearch(rd, get(req.space), req.query, req.opts);
      return { op: 'substructure', result };
    },
  };
});
