/** Worker-thread entry of the catalog build: loads RDKit once, then parses chunks on request. */
import { parentPort } from 'node:worker_threads';
import { getRDKit } from '../../chem/rdkit.ts';
import { parseChunk } from './parse-chunk.ts';
import type { InputRecord } from './input.ts';

const rd = await getRDKit();
parentPort!.on('message', (msg: { chunk: number; records: InputRecord[] }) => {
  try {
    const res = parseChunk(rd, msg.chunk, msg.records);
    parentPort!.postMessage({ ok: res }, [res.fps.buffer as ArrayBuffer, res.descriptors.buffer as ArrayBuffer]);
  } catch (err) {
    parentPort!.postMessage({ error: { chunk: msg.chunk, message: (err as Error).stack ?? String(err) } });
  }
});
parentPort!.postMessage({ ready: true });
