/** Messages between the pages and the RDKit worker (chem/rdkit-worker.ts). */
export interface Highlight {
  atoms?: number[];
  bonds?: number[];
  /** A query (SMILES, or SMARTS when `smarts`) whose first match in the molecule is highlighted. */
  query?: string;
  smarts?: boolean;
}

export type ChemRequest =
  | { op: 'depict'; smiles: string; width: number; height: number; highlight?: Highlight }
  | { op: 'check'; smiles: string }
  | { op: 'compare'; query: string; hit: string; width: number; height: number }
  | { op: 'map'; smiles: string[] };

export type ChemResponse =
  | { op: 'depict'; svg: string | null }
  | { op: 'check'; ok: boolean; canonical?: string; atoms?: number }
  | {
      op: 'compare';
      querySvg: string | null;
      hitSvg: string | null;
      mcsAtoms: number;
      mcsSmarts: string | null;
    }
  | { op: 'map'; x: number[]; y: number[]; valid: boolean[]; explained: [number, number] };
