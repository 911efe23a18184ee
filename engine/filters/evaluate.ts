/**
 * The per-molecule RDKit filters (QED, PAINS, Substructure, Superstructure), synchronous over one
 * thread's RDKit module. The filter pool runs this on worker threads; nothing here may run on the
 * API's event loop for more than a handful of molecules.
 */
import type { RDKitModule, RDKitMol } from '../chem/index.ts';
import {
  compileQedQueries,
  qedFromProperties,
  qedProperties,
  type QedProperties,
  type QedQueries,
} from './qed.ts';
import { compilePains, type PainsMatcher } from './pains.ts';
import { isRegioisomer, isScaffoldHop, moleculeFacts, queryFacts, type QueryFacts } from './medchem.ts';

/** Filters that need RDKit for every candidate. */
export const RDKIT_FILTERS = [
  'QED',
  'PAINS',
  'Substructure',
  'Superstructure',
  'Murcko scaffold hop',
  'Regioisomers',
  'No rare atoms',
] as const;
export type RDKitFilterName = (typeof RDKIT_FILTERS)[number];

/** The legacy `QED` filter keeps molecules with QED >= this (Bickerton's "attractive" cut-off). */
export const QED_THRESHOLD = 0.5;

/**
 * Stored catalog descriptors that equal QED's MW, ALOGP, HBD, PSA and ROTB (MolWt, MolLogP,
 * CalcNumHBD, CalcTPSA, strict CalcNumRotatableBonds); passing them skips RDKit's descriptor pass.
 */
export interface QedBaseDescriptors {
  molecular_weight: number;
  clogp: number;
  h_bond_donor: number;
  topological_surface_area_mapping: number;
  rotatable_bonds: number;
}

export interface FilterRequest {
  smiles: string[];
  filters: readonly string[];
  /** The search's query molecule (SMILES), needed by Substructure and Superstructure. */
  query?: string;
  /** Per candidate, the stored descriptors QED may reuse (same order as `smiles`). */
  descriptors?: (QedBaseDescriptors | null)[];
}

export interface FilterVerdicts {
  /** 1 when the candidate passes every requested RDKit filter (0 when RDKit cannot parse it). */
  pass: Uint8Array;
  /** QED per candidate when the QED filter was requested (NaN when unparsable). */
  qed?: Float64Array;
}

/** Lazily compiled queries for one thread; keeps the last query molecule. */
export interface FilterContext {
  rd: RDKitModule;
  qed?: QedQueries;
  pains?: PainsMatcher;
  query?: { smiles: string; mol: RDKitMol };
  queryFacts?: { smiles: string; facts: QueryFacts };
}

/** A context over `rd`; queries are compiled on first use. */
export function createFilterContext(rd: RDKitModule): FilterContext {
  return { rd };
}

function queryMol(ctx: FilterContext, smiles: string): RDKitMol {
  if (ctx.query?.smiles === smiles) return ctx.query.mol;
  const mol = ctx.rd.get_mol(smiles);
  if (!mol || !mol.is_valid()) {
    mol?.delete();
    throw Object.assign(new Error(`could not parse query SMILES ${JSON.stringify(smiles)}`), {
      code: 'invalid_smiles',
    });
  }
  ctx.query?.mol.delete();
  ctx.query = { smiles, mol };
  return mol;
}

function queryFactsOf(ctx: FilterContext, smiles: string): QueryFacts {
  if (ctx.queryFacts?.smiles === smiles) return ctx.queryFacts.facts;
  const facts = queryFacts(ctx.rd, smiles);
  if (!facts)
    throw Object.assign(new Error(`could not parse query SMILES ${JSON.stringify(smiles)}`), {
      code: 'invalid_smiles',
    });
  ctx.queryFacts = { smiles, facts };
  return facts;
}

function qedOf(ctx: FilterContext, mol: RDKitMol, base: QedBaseDescriptors | null | undefined): number {
  ctx.qed ??= compileQedQueries(ctx.rd);
  if (!base) return qedFromProperties(qedProperties(mol, ctx.qed));
  const props: QedProperties = {
    ...qedProperties(mol, ctx.qed, true),
    MW: base.molecular_weight,
    ALOGP: base.clogp,
    HBD: base.h_bond_donor,
    PSA: base.topological_surface_area_mapping,
    ROTB: base.rotatable_bonds,
  };
  return qedFromProperties(props);
}

/**
 * Applies the requested RDKit filters to each candidate; names outside RDKIT_FILTERS are ignored
 * (the caller handles them). Throws an Error with code 'invalid_smiles' if Substructure or
 * Superstructure is requested and the query cannot be parsed.
 */
export function evaluateFilters(ctx: FilterContext, req: FilterRequest): FilterVerdicts {
  const want = new Set(req.filters);
  const n = req.smiles.length;
  const pass = new Uint8Array(n);
  const qedValues = want.has('QED') ? new Float64Array(n).fill(NaN) : undefined;
  const needsQuery = want.has('Substructure') || want.has('Superstructure');
  const needsFacts = want.has('Murcko scaffold hop') || want.has('Regioisomers');
  if ((needsQuery || needsFacts) && !req.query)
    throw new Error('Substructure, Superstructure, scaffold and isomer filters need the query molecule');
  const q = needsQuery ? queryMol(ctx, req.query!) : undefined;
  const qf = needsFacts ? queryFactsOf(ctx, req.query!) : undefined;
  const needsMolFacts = needsFacts || want.has('No rare atoms');
  if (want.has('PAINS')) ctx.pains ??= compilePains(ctx.rd);
  for (let i = 0; i < n; i++) {
    const mol = ctx.rd.get_mol(req.smiles[i]);
    if (!mol || !mol.is_valid()) {
      mol?.delete();
      continue;
    }
    try {
      let ok = true;
      if (qedValues) {
        qedValues[i] = qedOf(ctx, mol, req.descriptors?.[i]);
        ok = qedValues[i] >= QED_THRESHOLD;
      }
      if (ok && want.has('Substructure')) ok = mol.get_substruct_match(q!) !== '{}';
      if (ok && want.has('Superstructure')) ok = q!.get_substruct_match(mol) !== '{}';
      if (ok && want.has('PAINS')) ok = !ctx.pains!.any(mol);
      if (ok && needsMolFacts) {
        const f = moleculeFacts(ctx.rd, mol, req.smiles[i]);
        if (want.has('No rare atoms')) ok = f.commonElementsOnly;
        if (ok && want.has('Murcko scaffold hop')) ok = isScaffoldHop(f, qf!);
        if (ok && want.has('Regioisomers')) ok = isRegioisomer(f, qf!);
      }
      pass[i] = ok ? 1 : 0;
    } finally {
      mol.delete();
    }
  }
  return { pass, qed: qedValues };
}
