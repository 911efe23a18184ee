/** Thread entry of the catalog build: loads RDKit (and the ADMET models when asked) once, then parses chunks on request. */
import { getRDKit } from '../../chem/rdkit.ts';
import { openAdmetModels } from '../../admet/onnx-pool.ts';
import { parseChunk, type ChunkResult } from './parse-chunk.ts';
import { predictChunk } from './admet-step.ts';
import type { ChunkRequest } from './pool.ts';
import { serveThread, withTransfer } from '../../threads/thread.ts';

serveThread<ChunkRequest, ChunkResult>(async (data) => {
  const { admet } = (data ?? {}) as { admet?: boolean };
  const rd = await getRDKit();
  const models = admet ? await openAdmetModels({ intraOpThreads: 1 }) : undefined;
  return {
    async handle(msg) {
      const res = parseChunk(rd, msg.chunk, msg.records, { features: Boolean(models) });
      if (models) await predictChunk(models, res);
      const transfer = [
        res.fps.buffer,
        res.descriptors.buffer,
        ...(res.admet ? [res.admet.buffer, res.ood!.buffer] : []),
      ] as ArrayBuffer[];
      return withTransfer(res, transfer);
    },
  };
});
