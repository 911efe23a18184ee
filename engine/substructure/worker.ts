// Thread entry of the substructure runner: one lazily built index per library (all within one
// memory budget), parsed queries kept
// in a small LRU (a scan's slices reuse its query), and one slice of a scan per request.
import { getRDKit, type RDKitMol } from '../chem/index.ts';
import { createIndex, indexBytes, parseQuery, scanSubstructure, type SubstructureIndex } from './scan.ts';
import type { SubstructureReply, SubstructureRequest } from './runner.ts';
import { serveThread } from '../threads/thread.ts';

const QUERY_CACHE = 32;

serveThread<SubstructureRequest, SubstructureReply>(async (data) => {
  const rd = await getRDKit();
  const indexes = new Map<string, SubstructureIndex>();
  const budget = { used: 0, max: (data as { indexBytes?: number } | undefined)?.indexBytes ?? Infinity };
  const queries = new Map<string, RDKitMol>();
  const query = (format: 'smarts' | 'smiles', value: string): RDKitMol | null => {
    const k = `${format}:${value}`;
    const hit = queries.get(k);
    if (hit) {
      queries.delete(k); // re-inserted below: Map order is the LRU order
      queries.set(k, hit);
      return hit;
    }
    const q = parseQuery(rd, format, value);
    if (!q) return null;
    queries.set(k, q);
    if (queries.size > QUERY_CACHE) {
      const [oldest, mol] = queries.entries().next().value!;
      queries.delete(oldest);
      mol.delete();
    }
    return q;
  };
  return {
    handle(msg) {
      if (msg.smiles) {
        const old = indexes.get(msg.library);
        if (old) budget.used -= indexBytes(old);
        indexes.set(msg.library, createIndex(msg.smiles, budget));
      }
      const index = indexes.get(msg.library);
      if (!index) throw new Error(`library ${msg.library} was never sent to this thread`);
      const q = query(msg.format, msg.query);
      if (!q) return { invalidQuery: true };
      return { result: scanSubstructure(rd, index, q, msg.limit, msg.until, msg.from, msg.deadline) };
    },
  };
});
