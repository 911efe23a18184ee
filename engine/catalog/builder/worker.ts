/** Worker-thread entry of the catalog build: loads RDKit (and the ADMET models when asked) once, then parses chunks on request. */
import { parentPort, workerData } from 'node:worker_threads';
import { getRDKit } from '../../chem/rdkit.ts';
import { openAdmetModels } from '../../admet/onnx-pool.ts';
import { parseChunk } from './parse-chunk.ts';
import { predictChunk } from './admet-step.ts';
import type { InputRecord } from './input.ts';

const { admet } = (workerData ?? {}) as { admet?: boolean };
const rd = await getRDKit();
const models = admet ? await openAdmetModels({ intraOpThreads: 1 }) : undefined;
parentPort!.on('message', async (msg: { chunk: number; records: InputRecord[] }) => {
  try {
    const res = parseChunk(rd, msg.chunk, msg.records, { features: Boolean(models) });
    if (models) await predictChunk(models, res);
    const transfer = [
      res.fps.buffer,
      res.descriptors.buffer,
      ...(res.admet ? [res.admet.buffer, res.ood!.buffer] : []),
    ] as ArrayBuffer[];
    parentPort!.postMessage({ ok: res }, transfer);
  } catch (err) {
    parentPort!.postMessage({ error: { chunk: msg.chunk, message: (err as Error).stack ?? String(err) } });
  }
});
parentPort!.postMessage({ ready: true });
