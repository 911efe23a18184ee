/// <reference lib="webworker" />
import initRDKitModule from '@rdkit/rdkit';
import type { MainModule as RDKitModule, Mol as JSMol } from '@rdkit/rdkit';
import wasmUrl from '@rdkit/rdkit/RDKit_minimal.wasm?url';
import type { ChemRequest, ChemResponse, Highlight } from './protocol.ts';
import { pca2, type SparseRows } from '../charts/pca.ts';

/**
 * RDKit (WebAssembly) in a worker, so depictions, structure checks, maximum common substructures
 * and the fingerprints behind the 2D map never block the page. Requests are answered in order.
 */
const rdkit: Promise<RDKitModule> = initRDKitModule({
  locateFile: () => wasmUrl,
});
const FP_BITS = 2048;
const DRAW = { addStereoAnnotation: true, bondLineWidth: 1.5, clearBackground: false };
const HIGHLIGHT = { highlightColour: [1, 0.78, 0.45], highlightBondWidthMultiplier: 12 };

function withMol<T>(rd: RDKitModule, smiles: string, fn: (mol: JSMol) => T): T | null {
  let mol: JSMol | null = null;
  try {
    mol = smiles.trim() ? rd.get_mol(smiles) : null;
    if (!mol || !mol.is_valid()) return null;
    return fn(mol);
  } catch {
    return null;
  } finally {
    mol?.delete();
  }
}

function matchOf(
  rd: RDKitModule,
  mol: JSMol,
  query: string,
  smarts = false,
): { atoms: number[]; bonds: number[] } {
  const q = smarts ? rd.get_qmol(query) : rd.get_mol(query);
  try {
    if (!q || !q.is_valid()) return { atoms: [], bonds: [] };
    const m = JSON.parse(mol.get_substruct_match(q)) as { atoms?: number[]; bonds?: number[] };
    return { atoms: m.atoms ?? [], bonds: m.bonds ?? [] };
  } finally {
    q?.delete();
  }
}

function svgOf(rd: RDKitModule, mol: JSMol, width: number, height: number, h?: Highlight): string {
  let atoms = h?.atoms ?? [];
  let bonds = h?.bonds ?? [];
  if (h?.query) ({ atoms, bonds } = matchOf(rd, mol, h.query, h.smarts));
  const details = { width, height, ...DRAW, ...(atoms.length ? { atoms, bonds, ...HIGHLIGHT } : {}) };
  return mol.get_svg_with_highlights(JSON.stringify(details));
}

/** On-bit indices of each molecule's Morgan radius-2 2048-bit fingerprint (null when unparsable). */
function onBits(rd: RDKitModule, smiles: string): Int32Array | null {
  return withMol(rd, smiles, (mol) => {
    const bytes = mol.get_morgan_fp_as_uint8array(
      JSON.stringify({ radius: 2, nBits: FP_BITS }),
    ) as Uint8Array;
    const out: number[] = [];
    for (let i = 0; i < bytes.length; i++)
      for (let b = 0; b < 8; b++) if (bytes[i] & (1 << b)) out.push(i * 8 + b);
    return Int32Array.from(out);
  });
}

async function handle(req: ChemRequest): Promise<ChemResponse> {
  const rd = await rdkit;
  switch (req.op) {
    case 'depict':
      return {
        op: 'depict',
        svg: withMol(rd, req.smiles, (m) => svgOf(rd, m, req.width, req.height, req.highlight)),
      };
    case 'check': {
      const r = withMol(rd, req.smiles, (m) => ({ canonical: m.get_smiles(), atoms: m.get_num_atoms() }));
      return { op: 'check', ok: r !== null, ...r };
    }
    case 'compare': {
      let mcsSmarts: string | null = null;
      let mcsAtoms = 0;
      const list = new rd.MolList();
      const mols = [req.query, req.hit].map((s) => (s.trim() ? rd.get_mol(s) : null));
      try {
        if (mols.every((m) => m?.is_valid())) {
          for (const m of mols) list.append(m!);
          const mcs = JSON.parse(
            rd.get_mcs_as_json(
              list,
              JSON.stringify({ Timeout: 2, RingMatchesRingOnly: true, CompleteRingsOnly: true }),
            ),
          ) as { smarts?: string; numAtoms?: number };
          mcsSmarts = mcs.smarts || null;
          mcsAtoms = mcs.numAtoms ?? 0;
        }
      } catch {
        /* no MCS: both molecules are still drawn */
      } finally {
        list.delete();
        for (const m of mols) m?.delete();
      }
      const highlight = mcsSmarts && mcsAtoms > 1 ? { query: mcsSmarts, smarts: true } : undefined;
      const draw = (s: string) => withMol(rd, s, (m) => svgOf(rd, m, req.width, req.height, highlight));
      return { op: 'compare', querySvg: draw(req.query), hitSvg: draw(req.hit), mcsAtoms, mcsSmarts };
    }
    case 'map': {
      // Unparsable molecules are left out of the PCA and get no point (NaN).
      const fps = req.smiles.map((s) => onBits(rd, s));
      const kept = fps.flatMap((f, i) => (f ? [i] : []));
      const { x, y, explained } = pca2(kept.map((i) => fps[i]!) as SparseRows, FP_BITS);
      const xs = new Array<number>(fps.length).fill(NaN);
      const ys = new Array<number>(fps.length).fill(NaN);
      kept.forEach((row, k) => ((xs[row] = x[k]), (ys[row] = y[k])));
      return { op: 'map', x: xs, y: ys, valid: fps.map(Boolean), explained };
    }
  }
}

self.onmessage = async (e: MessageEvent<{ id: number; req: ChemRequest }>) => {
  try {
    self.postMessage({ id: e.data.id, res: await handle(e.data.req) });
  } catch (err) {
    self.postMessage({ id: e.data.id, error: String(err) });
  }
};
