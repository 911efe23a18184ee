// Where an exact Morgan top k of a space spends its time, step by step: the thresholds
// similarityTopK's ladder takes (0.7, 0.55, …, or the k-th best score found when higher), each a
// similaritySearch sharing one score map, with its walk and scoring times and counts, then the
// scored tuples per reaction. Queries run in order in one process (the first pays the cold start).
//
//   node bench/synthons/ladder-steps.ts --space <built space> [--k 100] [--prepare] SMILES [SMILES ...]
// (--prepare: first what the space thread does while idle, prepare.ts, so no step pays it)
import { parseArgs } from 'node:util';
import { MORGAN_DETAILS } from '../../engine/chem/fingerprint.ts';
import { getRDKit } from '../../engine/chem/rdkit.ts';
import { TOPK_THRESHOLDS } from '../../engine/synthons/similarity-ladder.ts';
import { kthBest } from '../../engine/synthons/similarity-scored.ts';
import { similaritySearch } from '../../engine/synthons/similarity.ts';
import { openSpace } from '../../engine/synthons/space.ts';
import { prepareSimilarity } from '../../engine/synthons/prepare.ts';

const { values, positionals } = parseArgs({
  options: {
    space: { type: 'string' },
    k: { type: 'string', default: '100' },
    prepare: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
if (!values.space || positionals.length === 0) {
  console.error('usage: ladder-steps.ts --space <dir> [--k 100] SMILES [SMILES ...]');
  process.exit(2);
}
const k = Number(values.k);
const rd = await getRDKit();
const space = await openSpace(values.space);
if (values.prepare)
  console.log(`prepared in ${(await prepareSimilarity(space, async () => {}, rd)).toFixed(0)} ms`);
const ms = (v: number): string => `${v.toFixed(0)} ms`;
for (const smiles of positionals) {
  const mol = rd.get_mol(smiles);
  if (!mol) throw new Error(`cannot parse ${smiles}`);
  const fp = new Uint8Array(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
  mol.delete();
  const scored = new Map<string, number | null>();
  const terms = new Map();
  const t0 = performance.now();
  console.log(smiles);
  for (const step of TOPK_THRESHOLDS) {
    const t = Math.max(step, kthBest(scored, k) ?? 0);
    const s0 = performance.now();
    const r = similaritySearch(rd, space, fp, { threshold: t, maxHits: k, scored, terms });
    console.log(
      `  threshold ${t.toFixed(3)}: ${ms(performance.now() - s0)} (walk ${ms(r.timingMs.proposal)}, ` +
        `scoring ${ms(r.timingMs.assembly)}), ${r.counts.screened} screened, ${r.counts.candidates} ` +
        `candidates, ${r.counts.assembled} scored, ${r.counts.invalid} invalid, ${r.hits.length} hits, ` +
        `k-th best so far ${kthBest(scored, k)?.toFixed(3) ?? '-'}`,
    );
    if (r.hits.length >= k || (kthBest(scored, k) ?? -1) >= t) break;
  }
  console.log(`  total ${ms(performance.now() - t0)}`);
  const per = new Map<number, [number, number]>();
  for (const [key, v] of scored) {
    const r = Number(key.split(':')[0]);
    const e = per.get(r) ?? [0, 0];
    e[0]++;
    if (v === null) e[1]++;
    per.set(r, e);
  }
  for (const [r, [n, invalid]] of [...per].sort((x, y) => y[1][0] - x[1][0]).slice(0, 8))
    console.log(`  ${space.reactions[r].info.id}: ${n} scored, ${invalid} invalid`);
}
