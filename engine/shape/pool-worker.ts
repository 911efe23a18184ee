// Thread entry of the shape pool: pure kernels, nothing to load; results come back with their
// indices shifted into the caller's shortlist.
import { serveThread } from '../threads/thread.ts';
import type { ShapeScoreRequest } from './pool.ts';
import { scoreShortlist, type ScoredCandidate } from './score.ts';

serveThread<ShapeScoreRequest, ScoredCandidate[]>(() => ({
  handle(req) {
    const scored = scoreShortlist(req.query, req.candidates, req.opts);
    for (const s of scored) s.index += req.offset;
    return scored;
  },
}));
