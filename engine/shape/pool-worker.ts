// Thread entry of the shape pool: pure kernels, nothing to load; scored candidates come back with
// their indices shifted into the caller's shortlist.
import { serveThread } from '../threads/thread.ts';
import type { ShapeScanRequest, ShapeScoreRequest } from './pool.ts';
import { scanShortlist, type Shortlist } from './scan.ts';
import { scoreShortlist, type ScoredCandidate } from './score.ts';

serveThread<ShapeScoreRequest | ShapeScanRequest, ScoredCandidate[] | Shortlist>(() => ({
  handle(req) {
    if ('kind' in req) return scanShortlist(req.query, req.table, req.k);
    const scored = scoreShortlist(req.query, req.candidates, req.opts);
    for (const s of scored) s.index += req.offset;
    return scored;
  },
}));
