/**
 * A tighter exact bound for the products of ring-closing and double-bond joins, from ring cores.
 *
 * bounds.ts bounds a product by its synthons' guaranteed bits G (environments far from every
 * unstable atom) plus at most U more bits (every environment within reach of an unstable atom).
 * For the small synthons of the AutoGrow4 space U is so large that at a top-100 threshold over
 * 10 % of the 2 × 10^8 weak-bound products pass it (20 M candidates, 2026-11-29). But the states
 * RDKit gives the unstable atoms depend only on the pair of ring cores (ring-zip.ts), and most
 * slots hold a single core (every aldehyde is `[*]C=O` at its core). So, per synthon a and per
 * state its partners' cores can give it:
 * - every environment of a product centred on an atom of a whose ball (the atoms within its
 *   radius) holds no partner atom is built from a's atoms and their states alone, and RDKit's
 *   redundancy rule can drop it only for an environment with the same bond set, which is again
 *   one of these (a partner-free bond set differs from any set holding a join or partner bond);
 *   so these bits are the same in every product of a with a partner of that state;
 * - the other environments centred on a are those whose centre lies within radius − 1 bonds of
 *   an atom bonded to the partner: at most C_a of them whatever the partner.
 * With S_a(σ) the first set for state σ, G''_a = ∩_σ S_a(σ) ∪ G_a is in every product of a, and
 * the product holds at most U''_a = max_σ |S_a(σ) \ G''_a| + C_a other bits centred on a. These
 * replace (G, U) in bounds.ts's formula unchanged. A pair of cores whose tuples molzip cannot
 * join (zip-valence.ts: decided by the connectors' atoms, which the cores hold) gives only
 * invalid assemblies and is left out of ∩ and max. A synthon without a core, or with a partner
 * core whose pair RDKit must decide, keeps its (G, U).
 */
import { morganEnvironments } from '../analysis/embed/morgan-counts.ts';
import { FP_BYTES, MORGAN_FP } from '../chem/fingerprint.ts';
import type { RDKitModule } from '../chem/rdkit.ts';
import type { SlotColumns } from './format.ts';
import { ringCoreKey, ringProduct, type PairState, type RingProduct } from './ring-zip.ts';
import { encodeRingPairs } from './ring-pairs.ts';
import { zipWouldThrow } from './zip-valence.ts';
import { distancesFrom } from './synthon-chem.ts';

const NBITS = FP_BYTES * 8;

/** A slot's (G'', U''), laid out as its `guaranteed` and `unstableEnvs` columns. */
export interface RingBounds {
  guaranteed: Uint8Array;
  unstable: Uint16Array;
}

/** Pairs of core keys beyond which a reaction keeps its (G, U): each new pair costs an RDKit zip. */
export const MAX_CORE_PAIRS = 150_000;

/** What a synthon of slot s sees of a pair of cores: its atoms' states and ring flags. */
function stateKey(p: RingProduct, s: number): string {
  const c = p.cores[s];
  const rings: number[] = [];
  for (let k = 0; k < c.atoms.length; k++) {
    const j = p.index[s][c.atoms[k]];
    rings.push(j < 0 ? 2 : p.g.atomRings[j] > 0 ? 1 : 0);
  }
  const bonds = [...p.state.bonds]
    .filter(
      ([key]) => Math.floor(Math.floor(key / 65536) / 4096) === s && Math.floor((key % 65536) / 4096) === s,
    )
    .sort((x, y) => x[0] - y[0]);
  return JSON.stringify([[...p.state.aromatic[s]], [...p.state.hs[s]], [...p.state.charge[s]], rings, bonds]);
}

/** S_a(σ) as bits, and C_a, of slot s's synthon in one product. */
function sideBits(p: RingProduct, s: number): { bits: Uint8Array; cross: number } {
  const owner = new Int8Array(p.g.n).fill(-1);
  p.index.forEach((map, slot) => map.forEach((j) => j >= 0 && (owner[j] = slot)));
  const partner: number[] = [];
  for (let x = 0; x < p.g.n; x++) if (owner[x] !== s) partner.push(x);
  // Bonds from each atom to the nearest atom of the other slot.
  const dist = distancesFrom(p.g, partner);
  const bits = new Uint8Array(FP_BYTES);
  const env = morganEnvironments(p.g);
  for (let e = 0; e < env.codes.length; e++) {
    const x = env.atoms[e];
    if (owner[x] !== s || dist[x] <= env.radii[e]) continue;
    const bit = env.codes[e] % NBITS;
    bits[bit >>> 3] |= 1 << (bit & 7);
  }
  let cross = 0;
  for (let x = 0; x < p.g.n; x++)
    if (owner[x] === s) for (let r = 1; r <= MORGAN_FP.radius; r++) if (dist[x] <= r) cross++;
  return { bits, cross };
}

const popcount = (b: Uint8Array): number => {
  let n = 0;
  for (const v of b) for (let x = v; x; x &= x - 1) n++;
  return n;
};

/**
 * (G'', U'') of every synthon of a two-slot reaction whose products ring-zip.ts scores, with the
 * pair states it learnt on the way (ring-pairs.ts: stored so searches need no RDKit for them), or
 * undefined when the reaction has another shape or too many pairs of cores.
 */
export function ringBounds(
  rd: RDKitModule,
  ringForming: boolean,
  slots: readonly SlotColumns[],
  /**
   * Called now and then with the share of the work done (0..1) and the pairs of cores it is over,
   * for the build's progress (build-work.ts).
   */
  onProgress: (fraction: number, pairs: number) => void = () => {},
): { bounds: RingBounds[]; pairs: Uint8Array } | undefined {
  if (slots.length !== 2) return undefined;
  const keys = slots.map((slot) =>
    Array.from({ length: slot.synthonIds.length }, (_, i) => ringCoreKey(rd, slot, i, ringForming)),
  );
  // The first synthon of each core key stands for its key.
  const reps = keys.map((list) => {
    const m = new Map<string, number>();
    list.forEach((k, i) => k !== null && !m.has(k) && m.set(k, i));
    return m;
  });
  if (reps[0].size * reps[1].size > MAX_CORE_PAIRS) return undefined;
  // Per pair of keys: RDKit's state and what each side sees of it, or null when the pair takes
  // RDKit's path. Kept here (not in ring-zip.ts's bounded cache): the AutoGrow4 Fischer indole
  // reaction has 113,565 pairs of cores.
  const states = new Map<string, { state: PairState; seen: [string, string] } | null | 'invalid'>();
  // Pairs of cores cost an RDKit zip each (most of the time), synthons one per state: 80 / 20.
  const pairs = reps[0].size * reps[1].size;
  const synthons = slots[0].synthonIds.length + slots[1].synthonIds.length;
  for (const [ka, ia] of reps[0])
    for (const [kb, ib] of reps[1]) {
      if (states.size % 512 === 0) onProgress((0.8 * states.size) / pairs, pairs);
      // molzip's valence failure depends only on the connectors' atoms, which the cores hold:
      // every product of such a pair is an invalid assembly, never a hit, and needs no bound.
      if (zipWouldThrow(rd, [slots[0].smiles[ia], slots[1].smiles[ib]])) {
        states.set(`${ka}\t${kb}`, 'invalid');
        continue;
      }
      const p = ringProduct(rd, slots, [ia, ib], ringForming);
      states.set(`${ka}\t${kb}`, p ? { state: p.state, seen: [stateKey(p, 0), stateKey(p, 1)] } : null);
    }
  const order = reps.map((m) => [...m.keys()]);
  const position = order.map((list) => new Map(list.map((k, n) => [k, n])));
  const core = keys.map((list, s) => Int32Array.from(list, (k) => (k === null ? -1 : position[s].get(k)!)));
  const table = encodeRingPairs([core[0], core[1]], [order[0].length, order[1].length], (a, b) => {
    const st = states.get(`${order[0][a]}\t${order[1][b]}`);
    return st && st !== 'invalid' ? st.state : (st ?? null);
  });
  const bounds = slots.map((slot, s) => {
    const n = slot.synthonIds.length;
    const guaranteed = slot.guaranteed.slice();
    const unstable = slot.unstableEnvs.slice();
    const other = reps[1 - s];
    for (let i = 0; i < n; i++) {
      if (i % 512 === 0)
        onProgress(0.8 + (0.2 * (i + (s === 0 ? 0 : slots[0].synthonIds.length))) / synthons, pairs);
      const key = keys[s][i];
      if (key === null) continue;
      // One partner per state this synthon can take.
      const partners = new Map<string, { j: number; state: PairState }>();
      let ok = true;
      for (const [kp, jp] of other) {
        const st = states.get(s === 0 ? `${key}\t${kp}` : `${kp}\t${key}`);
        if (st === 'invalid') continue;
        if (!st) {
          ok = false;
          break;
        }
        if (!partners.has(st.seen[s])) partners.set(st.seen[s], { j: jp, state: st.state });
      }
      if (!ok || partners.size === 0) continue;
      const sets: Uint8Array[] = [];
      let cross = 0;
      for (const { j, state } of partners.values()) {
        const p = ringProduct(rd, slots, s === 0 ? [i, j] : [j, i], ringForming, state);
        if (!p) {
          ok = false;
          break;
        }
        const side = sideBits(p, s);
        sets.push(side.bits);
        cross = Math.max(cross, side.cross);
      }
      if (!ok) continue;
      const g = guaranteed.subarray(i * FP_BYTES, (i + 1) * FP_BYTES);
      const all = sets[0].slice();
      for (const b of sets) for (let k = 0; k < FP_BYTES; k++) all[k] &= b[k];
      let extra = 0;
      for (const b of sets) {
        const rest = new Uint8Array(FP_BYTES);
        for (let k = 0; k < FP_BYTES; k++) rest[k] = b[k] & ~all[k] & ~g[k];
        extra = Math.max(extra, popcount(rest));
      }
      const u = extra + cross;
      // Only ever tighter: G'' adds bits to G, and U'' replaces U when smaller.
      if (u > unstable[i]) continue;
      for (let k = 0; k < FP_BYTES; k++) g[k] |= all[k];
      unstable[i] = u;
    }
    return { guaranteed, unstable };
  });
  return { bounds, pairs: table };
}
