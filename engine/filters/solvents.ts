/**
 * Common laboratory solvents and small reagents that a purchasable catalog lists but a chemist
 * never wants back as a "neighbour". The `No solvents` filter drops a molecule whose canonical
 * SMILES (or whose every fragment) is in this list.
 */
export const SOLVENT_SMILES = [
  'O', // water
  'CO', // methanol
  'CCO', // ethanol
  'CCCO', // 1-propanol
  'CC(C)O', // isopropanol
  'CCCCO', // 1-butanol
  'CC(C)(C)O', // tert-butanol
  'OCCO', // ethylene glycol
  'CS(C)=O', // DMSO
  'CN(C)C=O', // DMF
  'CC(=O)N(C)C', // DMA
  'CN1CCCC1=O', // NMP
  'CC(C)=O', // acetone
  'CCC(C)=O', // butanone
  'CC#N', // acetonitrile
  'C1CCOC1', // THF
  'CC1CCCO1', // 2-MeTHF
  'C1COCCO1', // 1,4-dioxane
  'CCOCC', // diethyl ether
  'COC(C)(C)C', // MTBE
  'COCCOC', // DME
  'ClCCl', // dichloromethane
  'ClC(Cl)Cl', // chloroform
  'ClC(Cl)(Cl)Cl', // carbon tetrachloride
  'ClCCCl', // 1,2-dichloroethane
  'c1ccccc1', // benzene
  'Cc1ccccc1', // toluene
  'Cc1ccccc1C', // o-xylene
  'Cc1cccc(C)c1', // m-xylene
  'Cc1ccc(C)cc1', // p-xylene
  'Clc1ccccc1', // chlorobenzene
  'c1ccncc1', // pyridine
  'CCCCC', // pentane
  'CCCCCC', // hexane
  'CCCCCCC', // heptane
  'C1CCCCC1', // cyclohexane
  'CCOC(C)=O', // ethyl acetate
  'COC(C)=O', // methyl acetate
  'CC(=O)O', // acetic acid
  'O=CO', // formic acid
  'O=C(O)C(F)(F)F', // TFA
  'CCN(CC)CC', // triethylamine
  'CCN(C(C)C)C(C)C', // DIPEA
  'C[N+](=O)[O-]', // nitromethane
  'CC(C)CO', // isobutanol
  'OCC(O)CO', // glycerol
  'O=S1(=O)CCCC1', // sulfolane
  'CN1CCN(C)C1=O', // DMI
] as const;

/** Builds the membership test once, given a canonicaliser (RDKit's, so spellings don't matter). */
export function createSolventFilter(
  canonicalize: (smiles: string) => string | undefined,
): (canonicalSmiles: string) => boolean {
  const set = new Set<string>();
  for (const s of SOLVENT_SMILES) {
    const c = canonicalize(s);
    if (c) set.add(c);
  }
  return (smiles: string) =>
    set.has(smiles) || (smiles.includes('.') && smiles.split('.').every((f) => set.has(f)));
}
