// Substructure worker thread: keeps one lazily built index per library and answers scans.
import { parentPort } from 'node:worker_threads';
import { getRDKit } from '../chem/index.ts';
import { createIndex, parseQuery, scanSubstructure, type SubstructureIndex } from './scan.ts';
import type { SubstructureRequest, SubstructureReply } from './runner.ts';

const indexes = new Map<string, SubstructureIndex>();

parentPort!.on('message', async (msg: SubstructureRequest) => {
  const rd = await getRDKit();
  let reply: SubstructureReply;
  try {
    if (msg.smiles) indexes.set(msg.library, createIndex(msg.smiles));
    const index = indexes.get(msg.library);
    if (!index) {
      reply = { id: msg.id, needLibrary: true };
    } else {
      const q = parseQuery(rd, msg.format, msg.query);
      if (!q) reply = { id: msg.id, invalidQuery: true };
      else {
        try {
          reply = {
            id: msg.id,
            result: scanSubstructure(rd, index, q, msg.limit, performance.now() + msg.timeoutMs),
          };
        } finally {
          q.delete();
        }
      }
    }
  } catch (err) {
    reply = { id: msg.id, error: (err as Error).message };
  }
  parentPort!.postMessage(reply);
});
