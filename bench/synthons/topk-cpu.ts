// CPU time of the exact Morgan top 100 per query, best of three, for the engine of a given
// checkout: for A/B runs of two commits on one machine, alternating, e.g.
//   git worktree add /tmp/base <commit> && ln -s "$PWD/node_modules" /tmp/base/node_modules
//   for r in /tmp/base "$PWD" /tmp/base "$PWD"; do
//     node bench/synthons/topk-cpu.ts --root $r --space <built space> --queries q.json; done
// CPU time (process.cpuUsage), not wall time: it moved less than wall time while other work
// shared this two-core VM. Each query runs three times (slot terms are made afresh each run;
// the space's query-independent parts are prepared first, as the service's thread does).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: '.' },
    space: { type: 'string' },
    queries: { type: 'string' },
    k: { type: 'string', default: '100' },
  },
});
if (!values.space || !values.queries) {
  console.error('usage: topk-cpu.ts [--root <checkout>] --space <dir> --queries <q.json> [--k 100]');
  process.exit(2);
}
const root = resolve(values.root!);
const engine = (p: string) => import(`${root}/engine/${p}`);
const { MORGAN_DETAILS } = await engine('chem/fingerprint.ts');
const { getRDKit } = await engine('chem/rdkit.ts');
const { similarityTopK } = await engine('synthons/similarity-topk.ts');
const { openSpace } = await engine('synthons/space.ts');
const { prepareSimilarity } = await engine('synthons/prepare.ts');
const rd = await getRDKit();
const space = await openSpace(values.space);
await prepareSimilarity(space, async () => {}, rd);
const file = JSON.parse(readFileSync(values.queries!, 'utf8')) as {
  similarity: Array<string | [string, number]>;
};
const k = Number(values.k);
let total = 0;
for (const entry of file.similarity) {
  const smiles = typeof entry === 'string' ? entry : entry[0];
  const mol = rd.get_mol(smiles);
  const fp = new Uint8Array(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
  mol.delete();
  let best = Infinity;
  let kth = 0;
  for (let r = 0; r < 3; r++) {
    const c0 = process.cpuUsage();
    const res = similarityTopK(rd, space, fp, k, { timeoutMs: 60_000 });
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / 1000);
    kth = res.hits[res.hits.length - 1]?.similarity ?? 0;
  }
  total += best;
  console.log(`${best.toFixed(0).padStart(6)} ms CPU  k-th ${kth.toFixed(4)}  ${smiles}`);
}
console.log(`total ${total.toFixed(0)} ms CPU (${root})`);
