/**
 * Bemis-Murcko scaffolds, equal to Python RDKit's `MurckoScaffold.GetScaffoldForMol` followed by
 * `Chem.MolToSmiles`. MinimalLib has no Murcko function, so this reimplements RDKit's C++
 * `MurckoDecompose` on the mol-block graph:
 *  - keep ring atoms and the linker atoms on paths between rings;
 *  - also keep a removed atom when it is double-bonded to a kept atom (C=O, C=N on rings/linkers);
 *  - kept atoms that lose a neighbour lose their tetrahedral stereo and get their hydrogens
 *    recomputed (the re-read mol block does that), which matches RDKit's H fix-ups.
 * Molecules without rings give ''.
 */
import type { RDKitModule } from './rdkit.ts';
import { directionalBonds } from './smiles-bonds.ts';
import { parseMolBlock, writeSubMolBlock, type MolBlock } from './molblock.ts';

/** Marks atoms that lie in a cycle: endpoints of a bond that is not a bridge (Tarjan, iterative). */
export function ringAtoms(nAtoms: number, bonds: readonly { a: number; b: number }[]): Uint8Array {
  const adj: { to: number; bond: number }[][] = Array.from({ length: nAtoms }, () => []);
  bonds.forEach((bd, k) => {
    adj[bd.a].push({ to: bd.b, bond: k });
    adj[bd.b].push({ to: bd.a, bond: k });
  });
  const disc = new Int32Array(nAtoms).fill(-1);
  const low = new Int32Array(nAtoms);
  const isBridge = new Uint8Array(bonds.length);
  let time = 0;
  for (let root = 0; root < nAtoms; root++) {
    if (disc[root] >= 0) continue;
    // stack frames: [atom, parent bond, next neighbour position]
    const stack: [number, number, number][] = [[root, -1, 0]];
    disc[root] = low[root] = time++;
    while (stack.length) {
      const frame = stack[stack.length - 1];
      const [v, parentBond, pos] = frame;
      if (pos < adj[v].length) {
        frame[2]++;
        const { to, bond } = adj[v][pos];
        if (bond === parentBond) continue;
        if (disc[to] < 0) {
          disc[to] = low[to] = time++;
          stack.push([to, bond, 0]);
        } else low[v] = Math.min(low[v], disc[to]);
      } else {
        stack.pop();
        if (stack.length) {
          const u = stack[stack.length - 1][0];
          low[u] = Math.min(low[u], low[v]);
          if (low[v] > disc[u]) isBridge[parentBond] = 1;
        }
      }
    }
  }
  const inRing = new Uint8Array(nAtoms);
  bonds.forEach((bd, k) => {
    if (!isBridge[k]) inRing[bd.a] = inRing[bd.b] = 1;
  });
  return inRing;
}

/**
 * Which atoms of the mol block stay in the scaffold (1) and which kept atoms lost a neighbour (2 in
 * `touched`). Returns undefined when the molecule has no ring (empty scaffold).
 */
export function murckoKeep(
  mb: MolBlock,
): { keep: Uint8Array; touched: Uint8Array; removedAny: boolean } | undefined {
  const n = mb.atomLines.length;
  const inRing = ringAtoms(n, mb.bonds);
  if (!inRing.includes(1)) return undefined;
  const nbrs: { to: number; order: number }[][] = Array.from({ length: n }, () => []);
  for (const bd of mb.bonds) {
    nbrs[bd.a].push({ to: bd.b, order: bd.order });
    nbrs[bd.b].push({ to: bd.a, order: bd.order });
  }
  // Linkers: prune acyclic atoms leaf by leaf; what survives lies between two ring systems.
  const core = new Uint8Array(n).fill(1);
  const degree = Int32Array.from(nbrs, (l) => l.length);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (!inRing[i] && degree[i] <= 1) queue.push(i);
  while (queue.length) {
    const i = queue.pop()!;
    if (!core[i]) continue;
    core[i] = 0;
    for (const { to } of nbrs[i]) {
      if (core[to] && --degree[to] <= 1 && !inRing[to]) queue.push(to);
    }
  }
  const keep = core.slice();
  for (let i = 0; i < n; i++) {
    if (!core[i] && nbrs[i].some(({ to, order }) => core[to] && order === 2)) keep[i] = 1;
  }
  const touched = new Uint8Array(n);
  let removedAny = false;
  for (let i = 0; i < n; i++) {
    if (keep[i]) continue;
    removedAny = true;
    for (const { to } of nbrs[i]) if (core[to]) touched[to] = 1;
  }
  return { keep, touched, removedAny };
}

/**
 * The Bemis-Murcko scaffold of a molecule as canonical SMILES, from MinimalLib's mol block of it
 * (`mol.get_molblock()`) and its canonical SMILES. Returns '' for acyclic molecules. `inputSmiles`
 * (the SMILES the molecule was parsed from) decides which cis/trans marks survive, as in RDKit.
 */
export function murckoScaffoldFromMolBlock(
  rd: RDKitModule,
  molBlock: string | MolBlock,
  canonicalSmiles: string,
  inputSmiles?: string,
): string {
  const mb = typeof molBlock === 'string' ? parseMolBlock(molBlock) : molBlock;
  const sel = murckoKeep(mb);
  if (!sel) return '';
  if (!sel.removedAny) return canonicalSmiles;
  // Wedges starting at an atom that lost a neighbour would re-create stereo RDKit clears.
  const stereo = Int8Array.from(mb.bonds, (bd) => (bd.order === 1 && sel.touched[bd.a] ? 0 : bd.stereo));
  // RDKit keeps a double bond's cis/trans after the removal only while each end still has a bond
  // that was marked '/' or '\\' in the input; the kept coordinates would otherwise still define
  // it, so mark the others "either" (V2000 stereo 3).
  if (inputSmiles !== undefined && /[/\\]/.test(canonicalSmiles)) {
    const dirs = directionalBonds(inputSmiles);
    const marked = (a: number, b: number): boolean =>
      dirs === undefined || dirs.has(a < b ? `${a}-${b}` : `${b}-${a}`);
    const endOk = (end: number, other: number): boolean =>
      mb.bonds.some(
        (bd) =>
          (bd.a === end || bd.b === end) &&
          bd.a + bd.b - end !== other &&
          sel.keep[bd.a + bd.b - end] &&
          marked(bd.a, bd.b),
      );
    mb.bonds.forEach((bd, k) => {
      if (bd.order === 2 && sel.keep[bd.a] && sel.keep[bd.b] && (!endOk(bd.a, bd.b) || !endOk(bd.b, bd.a)))
        stereo[k] = 3;
    });
  }
  const sub = rd.get_mol(writeSubMolBlock(mb, sel.keep, stereo));
  if (!sub) return '';
  try {
    return sub.get_smiles();
  } finally {
    sub.delete();
  }
}
