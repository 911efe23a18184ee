/** Worker-thread entry of the ADMET predictor: loads RDKit and the 22 sessions once, then predicts batches. */
import { parentPort, workerData } from 'node:worker_threads';
import { getRDKit } from '../chem/rdkit.ts';
import { openAdmetModels } from './onnx-pool.ts';
import { predictSmilesBatch } from './predict.ts';

const { modelDir } = (workerData ?? {}) as { modelDir?: string };
try {
  const [rd, models] = await Promise.all([getRDKit(), openAdmetModels({ dir: modelDir, intraOpThreads: 1 })]);
  parentPort!.on('message', (msg: { id: number; smiles: string[] }) => {
    predictSmilesBatch(rd, models, msg.smiles).then(
      (table) =>
        parentPort!.postMessage({ id: msg.id, table }, [
          table.descriptors.buffer as ArrayBuffer,
          table.scores.buffer as ArrayBuffer,
          table.ood.buffer as ArrayBuffer,
        ]),
      (err: Error) => parentPort!.postMessage({ id: msg.id, error: err.stack ?? String(err) }),
    );
  });
  parentPort!.postMessage({ ready: true, version: models.manifest.version });
} catch (err) {
  parentPort!.postMessage({ failed: (err as Error).message });
}
