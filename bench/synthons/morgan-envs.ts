// Cost of one call of the TypeScript Morgan environments (morgan-counts.ts), which the ring-core
// scoring runs once per product: 100,000 calls over three product-sized molecules, three times.
//
//   source scripts/env.sh && node bench/synthons/morgan-envs.ts
import { getRDKit } from '../../engine/chem/rdkit.ts';
import { graphFromRDKitJson, markRingAtoms } from '../../engine/chem/graph.ts';
import { morganEnvironments } from '../../engine/analysis/embed/morgan-counts.ts';

const rd = await getRDKit();
const smiles = [
  'CC(=O)c1c(C)[nH]c2ccc(OC)cc12',
  'Cc1cc(C(=O)NCC2CCCO2)n(-c2ccccc2)n1',
  'O=C(O)c1ccc2[nH]c(C3CCCC3)c(C)c2c1',
];
const graphs = smiles.map((s) => {
  const m = rd.get_mol(s);
  if (!m) throw new Error(s);
  const g = graphFromRDKitJson(m.get_json());
  m.delete();
  markRingAtoms(g);
  return g;
});
const calls = 100_000;
for (let rep = 0; rep < 3; rep++) {
  const t = performance.now();
  let codes = 0;
  for (let i = 0; i < calls; i++) codes += morganEnvironments(graphs[i % graphs.length]).codes.length;
  const us = ((performance.now() - t) / calls) * 1000;
  console.log(`${us.toFixed(2)} µs a call (${graphs.map((g) => g.n).join('/')} atoms, ${codes} codes)`);
}
