/**
 * Ring-core sides made ahead of the queries that would make them (prepare.ts, while the space
 * thread is idle), into ring-cross.ts's pool.
 */
import { MORGAN_FP } from '../chem/fingerprint.ts';
import type { RDKitModule } from '../chem/rdkit.ts';
import type { ReactionInfo, SlotColumns } from './format.ts';
import type { RingPairs } from './ring-pairs.ts';
import { ringReaction, ringSidesLimit, ringSidesUsed, tupleSides } from './ring-cross.ts';

/**
 * Makes the sides of a reaction's tuples as queries would on meeting them, pair table row by row
 * (a core of slot 0 against every core of slot 1) from `row`, for about `ms`. Returns the next
 * row, or −1 when the rows are done or the pool is nine-tenths full (queries make the rest). The
 * space thread does this while idle (prepare.ts): on the 10^9 space a query's first meeting with
 * its sides cost caffeine ~0.9 s of a 3.0 s first run (bench/synthons/README.md, "Pair walk by
 * query-mask groups"); every side of the space takes ~5 s to make.
 */
export function makeRingSides(
  rd: RDKitModule,
  reaction: { info: ReactionInfo; slots: readonly SlotColumns[] },
  row = 0,
  ms = 50,
): number {
  const r = ringReaction(rd, reaction);
  if (!r || MORGAN_FP.radius !== 2) return -1;
  const { cores, entry } = r.table;
  const [byCore0, byCore1] = coreMembers(r.table);
  const until = performance.now() + ms;
  for (let ca = row; ca < cores[0]; ca++) {
    if (ringSidesUsed() > 0.9 * ringSidesLimit()) return -1;
    if (ca > row && performance.now() > until) return ca;
    const as = byCore0[ca];
    if (as.length === 0) continue;
    for (let cb = 0; cb < cores[1]; cb++) {
      const bs = byCore1[cb];
      if (entry[ca * cores[1] + cb] < 0 || bs.length === 0) continue;
      // A side depends on its synthon and the pair's state: one partner per core pair will do.
      for (const i of as) tupleSides(r, i, bs[0]);
      for (const j of bs) tupleSides(r, as[0], j);
    }
  }
  return -1;
}

const membersMemo = new WeakMap<RingPairs, [number[][], number[][]]>();

/** Per slot, the synthons of each core. */
function coreMembers(table: RingPairs): [number[][], number[][]] {
  let known = membersMemo.get(table);
  if (!known) {
    const of = (s: 0 | 1): number[][] => {
      const out = Array.from({ length: table.cores[s] }, (): number[] => []);
      table.core[s].forEach((c, i) => c >= 0 && out[c].push(i));
      return out;
    };
    membersMemo.set(table, (known = [of(0), of(1)]));
  }
  return known;
}
