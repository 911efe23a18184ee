/**
 * Offline check of engine/chem tpsa.ts, weight.ts and counts.ts against Python RDKit on every
 * molecule of the reference sets, and their speed on the ADMET bench's 10k molecules.
 *
 *   .tools/pyoff/bin/python test/fixtures/make_graph_descriptors_reference.py --all bench/out/graph-descriptors-all.jsonl
 *   node bench/chem/check-graph-descriptors.ts [bench/out/graph-descriptors-all.jsonl]
 *
 * Prints, per set, molecules compared and mismatches per descriptor (integers exact; floats beyond
 * 1e-9 relative count as mismatches, and floats that are not the same double are reported apart),
 * then µs per molecule for building the graph and for all descriptors together.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  formalCharge,
  fractionCSP3,
  numAromaticRings,
  numAtoms,
  numHeavyAtoms,
  numHeteroatoms,
  numRings,
} from '../../engine/chem/counts.ts';
import { graphFromRDKitJson, type MolGraph } from '../../engine/chem/graph.ts';
import { getRDKit } from '../../engine/chem/rdkit.ts';
import { tpsa } from '../../engine/chem/tpsa.ts';
import { averageMolWeight } from '../../engine/chem/weight.ts';

const NAMES = [
  'tpsa',
  'mol_wt',
  'num_atoms',
  'heavy_atoms',
  'num_rings',
  'formal_charge',
  'fraction_csp3',
  'aromatic_rings',
  'heteroatoms',
] as const;
const FLOATS = new Set(['tpsa', 'mol_wt', 'fraction_csp3']);

function compute(g: MolGraph): (number | null)[] {
  return [
    tpsa(g),
    averageMolWeight(g),
    numAtoms(g),
    numHeavyAtoms(g),
    numRings(g),
    formalCharge(g),
    fractionCSP3(g),
    numAromaticRings(g),
    numHeteroatoms(g),
  ];
}

const path = process.argv[2] ?? fileURLToPath(new URL('../out/graph-descriptors-all.jsonl', import.meta.url));
const rows = readFileSync(path, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as [string, string, number[] | null]);
const rd = await getRDKit();

interface SetStats {
  rows: number;
  compared: number;
  parseDisagree: number;
  nulls: number;
  mismatch: Record<string, number>;
  notSameDouble: Record<string, number>;
}
const stats = new Map<string, SetStats>();
const graphs = new Map<string, MolGraph | null>();
const examples: string[] = [];
for (const [set, smi, want] of rows) {
  let s = stats.get(set);
  if (!s)
    stats.set(
      set,
      (s = { rows: 0, compared: 0, parseDisagree: 0, nulls: 0, mismatch: {}, notSameDouble: {} }),
    );
  s.rows++;
  if (!graphs.has(smi)) {
    const m = rd.get_mol(smi);
    graphs.set(smi, m && m.is_valid() ? graphFromRDKitJson(m.get_json()) : null);
    m?.delete();
  }
  const g = graphs.get(smi) ?? null;
  if (!g || !want) {
    if (Boolean(g) !== Boolean(want)) s.parseDisagree++;
    continue;
  }
  s.compared++;
  const got = compute(g);
  if (got.includes(null)) s.nulls++;
  NAMES.forEach((name, k) => {
    const a = got[k];
    const b = want[k];
    if (a === null) return;
    const ok = FLOATS.has(name) ? Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)) : a === b;
    if (!ok) {
      s.mismatch[name] = (s.mismatch[name] ?? 0) + 1;
      if (examples.length < 30) examples.push(`${set} ${smi}: ${name} ${a} != ${b}`);
    } else if (a !== b) s.notSameDouble[name] = (s.notSameDouble[name] ?? 0) + 1;
  });
}

let total = 0;
for (const [set, s] of stats) {
  const mm = Object.values(s.mismatch).reduce((x, y) => x + y, 0);
  total += mm;
  console.log(
    `${set.padEnd(16)} rows ${String(s.rows).padStart(6)}  compared ${String(s.compared).padStart(6)}  parse disagreements ${s.parseDisagree}  null ${s.nulls}  mismatches ${mm} ${JSON.stringify(s.mismatch)}  not-same-double ${JSON.stringify(s.notSameDouble)}`,
  );
}
for (const e of examples) console.log('  ' + e);
console.log(`total mismatches: ${total}`);

// Speed on the 10k set: graph building (get_json + graphFromRDKitJson) and the descriptors, apart.
const bench = [...new Set(rows.filter((r) => r[0] === 'admet-10k').map((r) => r[1]))];
const mols = bench.map((smi) => rd.get_mol(smi)).filter((m) => m && m.is_valid());
const jsons = mols.map((m) => m!.get_json());
let t = process.hrtime.bigint();
for (const m of mols) m!.get_json();
const jsonUs = Number(process.hrtime.bigint() - t) / 1e3 / mols.length;
for (const m of mols) m!.delete();
t = process.hrtime.bigint();
const built = jsons.map((j) => graphFromRDKitJson(j));
const graphUs = Number(process.hrtime.bigint() - t) / 1e3 / built.length;
let sink = 0;
const REPS = 20;
for (let r = 0; r < 3; r++) for (const g of built) sink += compute(g)[0] ?? 0; // warm-up
t = process.hrtime.bigint();
for (let r = 0; r < REPS; r++) for (const g of built) sink += compute(g)[0] ?? 0;
const descUs = Number(process.hrtime.bigint() - t) / 1e3 / built.length / REPS;
console.log(
  `10k set (${built.length} molecules): get_json ${jsonUs.toFixed(1)} µs/mol, graphFromRDKitJson ${graphUs.toFixed(1)} µs/mol, all 9 descriptors ${descUs.toFixed(2)} µs/mol (checksum ${sink.toFixed(0)})`,
);
