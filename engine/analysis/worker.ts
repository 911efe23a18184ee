// Thread entry of the analysis pool: one RDKit module per thread; AnalysisErrors leave as 422s.
import { getRDKit } from '../chem/index.ts';
import { serveThread } from '../threads/thread.ts';
import { analysisToDomain } from './errors.ts';
import { runAnalysis, type AnalysisRequest } from './ops/index.ts';

serveThread<AnalysisRequest, unknown>(async () => {
  const rd = await getRDKit();
  return {
    handle(req) {
      try {
        return runAnalysis(rd, req);
      } catch (err) {
        throw analysisToDomain(err);
      }
    },
  };
});
