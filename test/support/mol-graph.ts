import { graphFromRDKitJson, type MolGraph } from '../../engine/chem/graph.ts';
import type { RDKitModule } from '../../engine/chem/rdkit.ts';

/** The engine's graph of a SMILES, parsed with RDKit's defaults as the service parses it. */
export function graphOf(rd: RDKitModule, smiles: string): MolGraph {
  const m = rd.get_mol(smiles);
  if (!m) throw new Error(`RDKit cannot parse ${smiles}`);
  try {
    return graphFromRDKitJson(m.get_json());
  } finally {
    m.delete();
  }
}
