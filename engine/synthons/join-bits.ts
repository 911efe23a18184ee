/**
 * Exact product fingerprints without assembly, for products of one join between two synthons
 * (two slots, one shared connector label, no ring closed, single non-aromatic connector bonds).
 *
 * A product P = zip(a, b) has three kinds of Morgan environments (radius ≤ 2): those of a that do
 * not contain the join bond (exactly a's guaranteed bits G_a, synthon-chem.ts), the same for b,
 * and the cross environments that contain it. A cross environment centred in a is built from a's
 * atoms within three bonds of its attachment atom A and, of b, only from the invariants of the
 * partner atom B and of B's other neighbours (radius 2 around A reaches B's neighbours through
 * B's radius-1 code); whether RDKit keeps it or drops it as redundant (same bond set as an earlier
 * environment) compares bond sets near the join, which on b's side are again fixed by those
 * invariants (they hold each atom's degree). So b enters a's cross bits only through its **join
 * view** `view(b)` = (invariants of B, bond types and invariants of B's other neighbours), and
 *     P = G_a ∪ G_b ∪ X_a(a, view(b)) ∪ X_b(b, view(a)).
 * X_a(a, v) is computed once per synthon and partner view, from one real product with a partner
 * of that view (the TypeScript Morgan that equals RDKit's), and reused for every other partner of
 * the same view: a few graph zips per synthon instead of one per product. Checked bit for bit
 * against RDKit's fingerprints of assembled products in test/engine/synthons/join-bits.test.ts.
 */
import type { MolGraph } from '../chem/graph.ts';
import type { RDKitModule } from '../chem/rdkit.ts';
import { FP_BYTES } from '../chem/fingerprint.ts';
import { atomInvariantParts, bondInvariants, morganEnvironments } from '../analysis/embed/morgan-counts.ts';
import type { ReactionInfo, SlotColumns } from './format.ts';
import { synthonGraph, zipGraphs } from './graph-zip.ts';

const NBITS = FP_BYTES * 8;

/** One synthon as one side of a join. */
export interface JoinSide {
  g: MolGraph;
  dummy: number;
  /** Bonds from the dummy to each atom (255 = farther or unreachable). */
  dist: Uint8Array;
  /** What a partner's cross environments see of this synthon. */
  view: string;
  /** This synthon's cross bits (sorted, unique) by the partner's view. */
  cross: Map<string, Uint16Array>;
}

const sides = new WeakMap<SlotColumns, Array<JoinSide | null | undefined>>();

/** Whether the reaction's products can be composed from join bits. */
export function joinable(info: ReactionInfo): boolean {
  if (info.ringForming || info.slots.length !== 2) return false;
  const [x, y] = info.slots.map((s) => s.connectors);
  return x.length === 1 && y.length === 1 && x[0] === y[0];
}

/** The synthon's join side (cached per slot), or null when it has not exactly one simple connector. */
export function joinSide(rd: RDKitModule, slot: SlotColumns, i: number): JoinSide | null {
  let list = sides.get(slot);
  if (!list) sides.set(slot, (list = new Array(slot.synthonIds.length)));
  const hit = list[i];
  if (hit !== undefined) return hit;
  list[i] = null;
  const c = synthonGraph(rd, slot, i);
  if (!c?.simple) return null;
  const g = c.g;
  let dummy = -1;
  for (let a = 0; a < g.n; a++)
    if (g.z[a] === 0) {
      if (dummy >= 0) return null;
      dummy = a;
    }
  if (dummy < 0 || g.adjStart[dummy + 1] - g.adjStart[dummy] !== 1) return null;
  const attach = g.adjAtom[g.adjStart[dummy]];
  const bondInv = bondInvariants(g);
  const others: string[] = [];
  for (let k = g.adjStart[attach]; k < g.adjStart[attach + 1]; k++)
    if (g.adjAtom[k] !== dummy)
      others.push(`${bondInv[g.adjBond[k]]}:${atomInvariantParts(g, g.adjAtom[k]).join(',')}`);
  others.sort();
  const view = `${bondInv[g.adjBond[g.adjStart[dummy]]]}|${atomInvariantParts(g, attach).join(',')}|${others.join(';')}`;
  const dist = new Uint8Array(g.n).fill(255);
  dist[dummy] = 0;
  const queue = [dummy];
  for (let q = 0; q < queue.length; q++) {
    const a = queue[q];
    if (dist[a] >= 3) continue;
    for (let k = g.adjStart[a]; k < g.adjStart[a + 1]; k++) {
      const o = g.adjAtom[k];
      if (dist[o] === 255) {
        dist[o] = dist[a] + 1;
        queue.push(o);
      }
    }
  }
  return (list[i] = { g, dummy, dist, view, cross: new Map() });
}

/** Zips one real product of the two sides and records both sides' cross bits under the other's view. */
function learnCross(x: JoinSide, y: JoinSide): boolean {
  const product = zipGraphs([x.g, y.g]);
  if (!product || product.n !== x.g.n + y.g.n - 2) return false;
  const env = morganEnvironments(product);
  const bits: [Set<number>, Set<number>] = [new Set(), new Set()];
  const split = x.g.n - 1;
  for (let k = 0; k < env.codes.length; k++) {
    const p = env.atoms[k];
    // zipGraphs keeps each side's atoms in order, without its paired dummy.
    const [side, s] = p < split ? [0, x] : [1, y];
    const local = side === 0 ? p : p - split;
    const atom = local < s.dummy ? local : local + 1;
    if (s.dist[atom] <= env.radii[k]) bits[side].add(env.codes[k] % NBITS);
  }
  x.cross.set(y.view, Uint16Array.from(bits[0]).sort());
  y.cross.set(x.view, Uint16Array.from(bits[1]).sort());
  return true;
}

/**
 * The product fingerprint of synthons i (slot 0) and j (slot 1) of a joinable reaction, composed
 * from guaranteed and cross bits into `out` (256 bytes), or undefined when either synthon is not
 * a simple one-connector synthon or the pair does not zip (the caller assembles it instead).
 */
export function joinFingerprint(
  rd: RDKitModule,
  slots: readonly SlotColumns[],
  i: number,
  j: number,
  out: Uint8Array = new Uint8Array(FP_BYTES),
): Uint8Array | undefined {
  const x = joinSide(rd, slots[0], i);
  const y = x && joinSide(rd, slots[1], j);
  if (!x || !y) return undefined;
  let cx = x.cross.get(y.view);
  let cy = y.cross.get(x.view);
  if (!cx || !cy) {
    if (!learnCross(x, y)) return undefined;
    cx = x.cross.get(y.view)!;
    cy = y.cross.get(x.view)!;
  }
  const ga = slots[0].guaranteed;
  const gb = slots[1].guaranteed;
  const oa = i * FP_BYTES;
  const ob = j * FP_BYTES;
  for (let k = 0; k < FP_BYTES; k++) out[k] = ga[oa + k] | gb[ob + k];
  for (const bit of cx) out[bit >> 3] |= 1 << (bit & 7);
  for (const bit of cy) out[bit >> 3] |= 1 << (bit & 7);
  return out;
}
