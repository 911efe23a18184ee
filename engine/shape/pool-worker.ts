// Thread entry of the shape pool: pure kernels, nothing to load; scored candidates come back with
// their indices shifted into the caller's shortlist.
import { serveThread } from '../threads/thread.ts';
import type {
  ShapeEspPrescreenRequest,
  ShapeGridRequest,
  ShapePoseScanRequest,
  ShapeScanRequest,
  ShapeScoreRequest,
} from './pool.ts';
import { espPrescreenPart, type PrescreenPart } from './esp-prescreen.ts';
import { gridScan } from './gaussian-grid.ts';
import { buildGridTables, type GridTables } from './grid-tables.ts';
import { poseChargeScan } from './pose-grid.ts';
import { scanShortlist, type Shortlist } from './scan.ts';
import { scoreShortlist, type ScoredCandidate } from './score.ts';

serveThread<
  ShapeScoreRequest | ShapeScanRequest | ShapePoseScanRequest | ShapeEspPrescreenRequest | ShapeGridRequest,
  ScoredCandidate[] | Shortlist | PrescreenPart | GridTables
>(() => ({
  handle(req) {
    if ('kind' in req) {
      if (req.kind === 'grids') return buildGridTables(req.shard);
      if (req.kind === 'esp')
        return espPrescreenPart(req.query, req.tables, req.shard, req.pool, req.part, req.parts);
      if (req.kind === 'pose') return poseChargeScan(req.shape, req.charge, req.tables, req.k);
      return req.grid
        ? gridScan(req.query, req.table, req.k, req.grid)
        : scanShortlist(req.query, req.table, req.k);
    }
    const scored = scoreShortlist(req.query, req.candidates, req.opts);
    for (const s of scored) s.index += req.offset;
    return scored;
  },
}));
