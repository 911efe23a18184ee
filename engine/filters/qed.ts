/**
 * QED, the quantitative estimate of drug-likeness (Bickerton et al., Nature Chem. 4, 90-98, 2012),
 * exactly as RDKit's Python `rdkit.Chem.QED.qed` computes it with the default `WEIGHT_MEAN`
 * weights: the same 8 properties (with QED's own acceptor SMARTS, strict rotatable bonds, its
 * aromatic-ring count and its 116 structural alerts) mapped through the same asymmetric double
 * sigmoids. Checked against Python RDKit to 1e-6 (test/engine/filters/qed.test.ts).
 */
import type { RDKitModule, RDKitMol } from '../chem/index.ts';
import type { Descriptors } from '../chem/descriptors.ts';
import { describeMolecule } from '../chem/graph-descriptors.ts';
import { QED_ACCEPTOR_SMARTS, QED_ALERT_SMARTS, QED_ALIPHATIC_RING_ATOM_SMARTS } from './qed-smarts.ts';

export const QED_PROPERTY_NAMES = ['MW', 'ALOGP', 'HBA', 'HBD', 'PSA', 'ROTB', 'AROM', 'ALERTS'] as const;
export type QedPropertyName = (typeof QED_PROPERTY_NAMES)[number];
export type QedProperties = Record<QedPropertyName, number>;

/** QED.WEIGHT_MEAN, in QED_PROPERTY_NAMES order. */
export const QED_WEIGHT_MEAN = [0.66, 0.46, 0.05, 0.61, 0.06, 0.65, 0.48, 0.95] as const;

/** The asymmetric double sigmoid parameters (QED.adsParameters). */
const ADS = {
  MW: {
    A: 2.817065973,
    B: 392.5754953,
    C: 290.7489764,
    D: 2.419764353,
    E: 49.22325677,
    F: 65.37051707,
    DMAX: 104.9805561,
  },
  ALOGP: {
    A: 3.172690585,
    B: 137.8624751,
    C: 2.534937431,
    D: 4.581497897,
    E: 0.822739154,
    F: 0.576295591,
    DMAX: 131.3186604,
  },
  HBA: {
    A: 2.948620388,
    B: 160.4605972,
    C: 3.615294657,
    D: 4.435986202,
    E: 0.290141953,
    F: 1.300669958,
    DMAX: 148.7763046,
  },
  HBD: {
    A: 1.618662227,
    B: 1010.051101,
    C: 0.985094388,
    D: 0.000000001,
    E: 0.713820843,
    F: 0.920922555,
    DMAX: 258.1632616,
  },
  PSA: {
    A: 1.876861559,
    B: 125.2232657,
    C: 62.90773554,
    D: 87.83366614,
    E: 12.01999824,
    F: 28.51324732,
    DMAX: 104.5686167,
  },
  ROTB: {
    A: 0.01,
    B: 272.4121427,
    C: 2.55837997,
    D: 1.565547684,
    E: 1.271567166,
    F: 2.758063707,
    DMAX: 105.4420403,
  },
  AROM: {
    A: 3.21778897,
    B: 957.7374108,
    C: 2.274627939,
    D: 0.000000001,
    E: 1.317690384,
    F: 0.375760881,
    DMAX: 312.337261,
  },
  ALERTS: {
    A: 0.01,
    B: 1199.094025,
    C: -0.09002883,
    D: 0.000000001,
    E: 0.185904477,
    F: 0.875193782,
    DMAX: 417.725314,
  },
} as const satisfies Record<QedPropertyName, Record<'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'DMAX', number>>;

/** The desirability of one property value (QED.ads), written with Python's operation order. */
function ads(x: number, p: (typeof ADS)[QedPropertyName]): number {
  const exp1 = 1 + Math.exp((-1 * (x - p.C + p.D / 2)) / p.E);
  const exp2 = 1 + Math.exp((-1 * (x - p.C - p.D / 2)) / p.F);
  const dx = p.A + (p.B / exp1) * (1 - 1 / exp2);
  return dx / p.DMAX;
}

/** QED from its 8 properties: the weighted geometric mean of their desirabilities. */
export function qedFromProperties(
  props: QedProperties,
  weights: readonly number[] = QED_WEIGHT_MEAN,
): number {
  let t = 0;
  let w = 0;
  QED_PROPERTY_NAMES.forEach((name, i) => {
    t += weights[i] * Math.log(ads(props[name], ADS[name]));
    w += weights[i];
  });
  return Math.exp(t / w);
}

/** Compiled SMARTS queries for QED; long-lived (one per thread), freed by `delete()`. */
export interface QedQueries {
  acceptors: RDKitMol[];
  alerts: RDKitMol[];
  aliphaticRingAtom: RDKitMol;
  delete(): void;
}

function qmol(rd: RDKitModule, smarts: string): RDKitMol {
  const q = rd.get_qmol(smarts);
  if (!q || !q.is_valid()) throw new Error(`RDKit rejected QED SMARTS ${smarts}`);
  return q;
}

/** Compiles the QED SMARTS once; throws if MinimalLib rejects one (a library change, not input). */
export function compileQedQueries(rd: RDKitModule): QedQueries {
  const acceptors = QED_ACCEPTOR_SMARTS.map((s) => qmol(rd, s));
  const alerts = QED_ALERT_SMARTS.map((s) => qmol(rd, s));
  const aliphaticRingAtom = qmol(rd, QED_ALIPHATIC_RING_ATOM_SMARTS);
  return {
    acceptors,
    alerts,
    aliphaticRingAtom,
    delete() {
      for (const q of [...acceptors, ...alerts, aliphaticRingAtom]) q.delete();
    },
  };
}

/** Number of matches (unique atom sets, RDKit's default uniquify) of `q` in `mol`. */
export function countMatches(mol: RDKitMol, q: RDKitMol): number {
  const m = JSON.parse(mol.get_substruct_matches(q)) as unknown;
  return Array.isArray(m) ? m.length : 0;
}

/** True when `q` matches `mol` at least once. */
export function hasMatch(mol: RDKitMol, q: RDKitMol): boolean {
  return mol.get_substruct_match(q) !== '{}';
}

/**
 * QED's AROM: `len(GetSSSR(DeleteSubstructs(mol, AliphaticRings)))`. The SSSR of what is left
 * has as many rings as its cycle rank (bonds - atoms + connected components), so the count is
 * taken from the graph without building the smaller molecule (MinimalLib cannot delete atoms).
 */
function aromaticRingCount(mol: RDKitMol, q: QedQueries): number {
  const json = JSON.parse(mol.get_json()) as {
    molecules: { atoms: unknown[]; bonds?: { atoms: [number, number] }[] }[];
  };
  const { atoms, bonds = [] } = json.molecules[0];
  const n = atoms.length;
  const deleted = new Uint8Array(n);
  const matches = JSON.parse(mol.get_substruct_matches(q.aliphaticRingAtom)) as unknown;
  if (Array.isArray(matches))
    for (const m of matches as { atoms: number[] }[]) for (const a of m.atoms) deleted[a] = 1;
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]];
    return x;
  };
  let vertices = 0;
  let edges = 0;
  let components = 0;
  for (let i = 0; i < n; i++) if (!deleted[i]) vertices++;
  components = vertices;
  for (const b of bonds) {
    const [a, c] = b.atoms;
    if (deleted[a] || deleted[c]) continue;
    edges++;
    const ra = find(a);
    const rc = find(c);
    if (ra !== rc) {
      parent[ra] = rc;
      components--;
    }
  }
  return edges - vertices + components;
}

/**
 * The 8 QED properties of a parsed molecule (hydrogens already removed, as MinimalLib's
 * `get_mol` does by default, so it matches QED's `Chem.RemoveHs`). MW, ALOGP, HBD, PSA and ROTB
 * are the graph descriptors (engine/chem/graph-descriptors.ts, equal to RDKit's).
 */
export function qedProperties(mol: RDKitMol, q: QedQueries, structuralOnly = false): QedProperties {
  // With `structuralOnly` the caller supplies MW, ALOGP, HBD, PSA and ROTB (e.g. from catalog
  // columns), and those five come back as NaN.
  const d: Partial<Descriptors> = structuralOnly ? {} : describeMolecule(mol).descriptors;
  let hba = 0;
  for (const a of q.acceptors) hba += countMatches(mol, a);
  let alerts = 0;
  for (const a of q.alerts) if (hasMatch(mol, a)) alerts++;
  return {
    MW: d.molecular_weight ?? NaN,
    ALOGP: d.clogp ?? NaN,
    HBA: hba,
    HBD: d.h_bond_donor ?? NaN,
    PSA: d.topological_surface_area_mapping ?? NaN,
    ROTB: d.rotatable_bonds ?? NaN,
    AROM: aromaticRingCount(mol, q),
    ALERTS: alerts,
  };
}

/** QED (WEIGHT_MEAN) of a parsed molecule. */
export function qed(mol: RDKitMol, q: QedQueries): number {
  return qedFromProperties(qedProperties(mol, q));
}
