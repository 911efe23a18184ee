/** Thread entry of the ADMET predictor: loads RDKit and the 22 sessions once, then predicts batches. */
import { getRDKit } from '../chem/rdkit.ts';
import { openAdmetModels } from './onnx-pool.ts';
import { predictSmilesBatch, type AdmetTable } from './predict.ts';
import { serveThread, withTransfer } from '../threads/thread.ts';

serveThread<string[], AdmetTable>(async (data) => {
  const { modelDir } = (data ?? {}) as { modelDir?: string };
  const [rd, models] = await Promise.all([getRDKit(), openAdmetModels({ dir: modelDir, intraOpThreads: 1 })]);
  return {
    info: { version: models.manifest.version },
    async handle(smiles) {
      const table = await predictSmilesBatch(rd, models, smiles);
      return withTransfer(table, [
        table.descriptors.buffer as ArrayBuffer,
        table.scores.buffer as ArrayBuffer,
        table.ood.buffer as ArrayBuffer,
      ]);
    },
  };
});
