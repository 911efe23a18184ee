// Where an exact Morgan top k of a space spends its time, step by step: the thresholds the
// service's ladder (similarity-ladder.ts ladderTopK) takes, each a similaritySearch sharing one
// score map, with its walk and scoring times and counts, then the scored tuples per reaction. Queries run in order in one process (the first pays the cold start).
//
//   node bench/synthons/ladder-steps.ts --space <built space> [--k 100] [--prepare] SMILES [SMILES ...]
// (--prepare: first what the space thread does while idle, prepare.ts, so no step pays it)
import { parseArgs } from 'node:util';
import { MORGAN_DETAILS } from '../../engine/chem/fingerprint.ts';
import { getRDKit } from '../../engine/chem/rdkit.ts';
import { ladderTopK } from '../../engine/synthons/similarity-ladder.ts';
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
  const t0 = performance.now();
  console.log(smiles);
  // The service's ladder itself (similarity-ladder.ts), spares and jumps included.
  ladderTopK(rd, space, fp, k, {
    scored,
    onStep: ({ threshold, ms: stepMs, result: r, kth }) =>
      console.log(
        `  threshold ${threshold.toFixed(3)}: ${ms(stepMs)} (walk ${ms(r.timingMs.proposal)}, ` +
          `scoring ${ms(r.timingMs.assembly)}), ${r.counts.screened} screened, ${r.counts.candidates} ` +
          `candidates, ${r.counts.assembled} scored, ${r.counts.invalid} invalid, ${r.hits.length} hits, ` +
          `k-th best so far ${kth?.toFixed(3) ?? '-'}`,
      ),
  });
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
