/**
 * Offline check of engine/chem/crippen.ts and lipinski.ts against Python RDKit on ALL molecules of
 * the reference sets, plus speed. First run the Python side, which writes the reference file:
 *
 *   .tools/pyoff/bin/python models/crippen_lipinski_reference.py
 *   node bench/chem/check-crippen-lipinski.ts [--minimallib all|bench10k|none]
 *
 * Prints mismatch counts per set (logP / MR within 1e-9 relative, counts exact, Crippen type counts
 * equal to models/crippen_types.py), how many logP / MR are bit-for-bit equal, null results, and
 * against MinimalLib's get_descriptors() (NumHBD, NumHBA, NumRotatableBonds, CrippenClogP,
 * CrippenMR) for the chosen sets. Then µs per molecule over the bench 10k set.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { CRIPPEN_LABELS, crippen, crippenTypeCounts } from '../../engine/chem/crippen.ts';
import { graphFromRDKitJson, type MolGraph } from '../../engine/chem/graph.ts';
import { numHBA, numHBD, numRotatableBonds } from '../../engine/chem/lipinski.ts';
import { getRDKit } from '../../engine/chem/rdkit.ts';

interface Ref {
  set: string;
  s: string;
  invalid?: boolean;
  logp: number;
  mr: number;
  hbd: number;
  hba: number;
  rot: number;
  types: Record<string, number>;
  capped: boolean;
}

const HERE = fileURLToPath(new URL('.', import.meta.url));
const { values } = parseArgs({ options: { minimallib: { type: 'string', default: 'bench10k' } } });
const refs = gunzipSync(readFileSync(join(HERE, '..', 'out', 'chem', 'crippen-lipinski-all.jsonl.gz')))
  .toString('utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Ref);
const rd = await getRDKit();
const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

interface Tally {
  molecules: number;
  unparsed: number;
  mismatches: number;
  nulls: number;
  exactBits: number;
  minimallib: number;
  minimallibMismatches: number;
}
const tallies = new Map<string, Tally>();
const examples: string[] = [];
const counts = new Float32Array(CRIPPEN_LABELS.length);
const graphs10k: MolGraph[] = [];
let graphMicros = 0;

for (const r of refs) {
  const t = tallies.get(r.set) ?? {
    molecules: 0,
    unparsed: 0,
    mismatches: 0,
    nulls: 0,
    exactBits: 0,
    minimallib: 0,
    minimallibMismatches: 0,
  };
  tallies.set(r.set, t);
  if (r.invalid) continue;
  t.molecules++;
  const mol = rd.get_mol(r.s);
  if (!mol || !mol.is_valid()) {
    t.unparsed++;
    mol?.delete();
    continue;
  }
  const json = mol.get_json();
  const t0 = performance.now();
  const g = graphFromRDKitJson(json);
  graphMicros += (performance.now() - t0) * 1000;
  if (r.set === 'bench10k') graphs10k.push(g);
  const bad: string[] = [];
  const c = crippen(g);
  if (c === null) {
    t.nulls++;
    if (!r.capped) bad.push('crippen null');
  } else {
    if (!close(c.logp, r.logp)) bad.push(`logp ${c.logp} != ${r.logp}`);
    if (!close(c.mr, r.mr)) bad.push(`mr ${c.mr} != ${r.mr}`);
    if (c.logp === r.logp && c.mr === r.mr) t.exactBits++;
  }
  const hbd = numHBD(g);
  const hba = numHBA(g);
  const rot = numRotatableBonds(g);
  if (hbd !== r.hbd) bad.push(`hbd ${hbd} != ${r.hbd}`);
  if (hba !== r.hba) bad.push(`hba ${hba} != ${r.hba}`);
  if (rot !== r.rot) bad.push(`rot ${rot} != ${r.rot}`);
  crippenTypeCounts(g, counts, 0);
  CRIPPEN_LABELS.forEach((label, i) => {
    if (counts[i] !== (r.types[label] ?? 0)) bad.push(`type ${label} ${counts[i]} != ${r.types[label] ?? 0}`);
  });
  if (bad.length) {
    t.mismatches++;
    if (examples.length < 30) examples.push(`${r.set} ${r.s}: ${bad.join('; ')}`);
  }
  if (values.minimallib === 'all' || values.minimallib === r.set) {
    t.minimallib++;
    const d = JSON.parse(mol.get_descriptors()) as Record<string, number>;
    const ok =
      d.NumHBD === hbd &&
      d.NumHBA === hba &&
      d.NumRotatableBonds === rot &&
      (c === null || (close(c.logp, d.CrippenClogP) && close(c.mr, d.CrippenMR)));
    if (!ok) {
      t.minimallibMismatches++;
      if (examples.length < 30)
        examples.push(
          `${r.set} ${r.s}: MinimalLib ${d.NumHBD} ${d.NumHBA} ${d.NumRotatableBonds} ${d.CrippenClogP} ${d.CrippenMR}`,
        );
    }
  }
  mol.delete();
}

console.log(
  'set        molecules  unparsed  mismatches  null  logP/MR bit-equal  MinimalLib-checked  MinimalLib-mismatches',
);
let total = 0;
for (const [set, t] of tallies) {
  total += t.molecules;
  console.log(
    `${set.padEnd(10)} ${String(t.molecules).padStart(9)} ${String(t.unparsed).padStart(9)} ${String(t.mismatches).padStart(11)} ${String(t.nulls).padStart(5)} ${String(t.exactBits).padStart(18)} ${String(t.minimallib).padStart(19)} ${String(t.minimallibMismatches).padStart(22)}`,
  );
}
for (const e of examples) console.log('  ' + e);
console.log(
  `graph build (graphFromRDKitJson, get_json excluded): ${(graphMicros / total).toFixed(1)} µs/molecule over ${total}`,
);

// Speed over the bench 10k set, graphs prebuilt; best of 5 rounds.
const time = (label: string, fn: (g: MolGraph) => void): void => {
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t0 = performance.now();
    for (const g of graphs10k) fn(g);
    best = Math.min(best, performance.now() - t0);
  }
  console.log(`${label.padEnd(44)} ${((best * 1000) / graphs10k.length).toFixed(2)} µs/molecule`);
};
let sink = 0;
time('crippen (logP, MR, types)', (g) => {
  sink += crippen({ ...g })?.logp ?? 0;
});
time('numHBD + numHBA + numRotatableBonds', (g) => {
  sink += numHBD(g) + numHBA(g) + numRotatableBonds(g);
});
time('crippen + crippenTypeCounts + the three counts', (g) => {
  const c = { ...g };
  sink += (crippen(c)?.logp ?? 0) + numHBD(c) + numHBA(c) + numRotatableBonds(c);
  crippenTypeCounts(c, counts, 0);
});
if (Number.isNaN(sink)) console.log(sink);
