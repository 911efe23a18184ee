// Thread entry of the substructure runner: keeps one lazily built index per library and answers scans.
import { getRDKit } from '../chem/index.ts';
import { createIndex, parseQuery, scanSubstructure, type SubstructureIndex } from './scan.ts';
import type { SubstructureReply, SubstructureRequest } from './runner.ts';
import { serveThread } from '../threads/thread.ts';

serveThread<SubstructureRequest, SubstructureReply>(async () => {
  const rd = await getRDKit();
  const indexes = new Map<string, SubstructureIndex>();
  return {
    handle(msg) {
      if (msg.smiles) indexes.set(msg.library, createIndex(msg.smiles));
      const index = indexes.get(msg.library);
      if (!index) throw new Error(`library ${msg.library} was never sent to this thread`);
      const q = parseQuery(rd, msg.format, msg.query);
      if (!q) return { invalidQuery: true };
      try {
        return { result: scanSubstructure(rd, index, q, msg.limit, performance.now() + msg.timeoutMs) };
      } finally {
        q.delete();
      }
    },
  };
});
