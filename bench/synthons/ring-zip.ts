/**
 * Ring cores (engine/synthons/ring-zip.ts) on a built space: for the reactions graph-zip.ts cannot
 * take (ring-closing joins, double-bond joins), random tuples are fingerprinted by the ring-core
 * path and by RDKit's zip of the kept synthon molecules (zip-fingerprint.ts, the path it replaces),
 * every fingerprint compared, and both timed per tuple. Tuples are drawn with a fixed seed, and
 * also in blocks around a few synthons (as a search's best-estimated tuples come), to show the
 * pair cache's hit rate either way.
 *
 *   source scripts/env.sh && node bench/synthons/ring-zip.ts --space data/spaces/zinc15_autogrow4_space \
 *     [--per-reaction 400] [--seed 1]
 */
import { parseArgs } from 'node:util';
import { getRDKit } from '../../engine/chem/rdkit.ts';
import { openSpace } from '../../engine/synthons/space.ts';
import { tupleFingerprint } from '../../engine/synthons/graph-zip.ts';
import { clearRingPairs, ringZipFingerprint, ringZipStats } from '../../engine/synthons/ring-zip.ts';
import { zipFingerprint } from '../../engine/synthons/zip-fingerprint.ts';
import { zipWouldThrow } from '../../engine/synthons/zip-valence.ts';

const { values } = parseArgs({
  options: {
    space: { type: 'string' },
    'per-reaction': { type: 'string', default: '400' },
    seed: { type: 'string', default: '1' },
  },
});
const rd = await getRDKit();
const space = await openSpace(values.space!);
const per = Number(values['per-reaction']);
let seed = Number(values.seed) >>> 0 || 1;
const rand = (n: number): number => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed % n;
};

type Tuple = { r: number; t: number[] };
// The reactions graph-zip.ts cannot take: ring-closing ones, and those whose first tuple it refuses
// (a double-bond join).
const weak = space.reactions
  .map((r, i) => ({ r, i }))
  .filter(({ r }) => r.slots.every((s) => s.synthonIds.length > 0))
  .filter(
    ({ r }) =>
      r.info.ringForming ||
      !tupleFingerprint(
        rd,
        r.slots,
        r.slots.map(() => 0),
        false,
      ),
  );
console.log(`${weak.length} reactions without the graph zip`);
for (const mode of ['random', 'blocks'] as const) {
  const tuples: Tuple[] = [];
  for (const { r, i } of weak) {
    const sizes = r.slots.map((s) => s.synthonIds.length);
    if (mode === 'random') for (let k = 0; k < per; k++) tuples.push({ r: i, t: sizes.map((n) => rand(n)) });
    else {
      // 20 synthons of slot 0 × per/20 of slot 1 (the rest random): a search's block.
      const a = Array.from({ length: 20 }, () => rand(sizes[0]));
      const b = Array.from({ length: Math.ceil(per / 20) }, () => rand(sizes[1]));
      for (const x of a)
        for (const y of b) tuples.push({ r: i, t: [x, y, ...sizes.slice(2).map((n) => rand(n))] });
    }
  }
  clearRingPairs();
  Object.assign(ringZipStats, { hits: 0, misses: 0, mismatches: 0, refused: 0 });
  // Each path runs once cold (synthon molecules, cores, pairs made), then again warm; the warm
  // passes are timed against each other, and every fingerprint is compared.
  const run = (
    f: (x: Tuple) => Uint8Array | undefined,
  ): { ms: number; fps: Array<Uint8Array | undefined> } => {
    const t0 = performance.now();
    const fps = tuples.map(f);
    return { ms: performance.now() - t0, fps };
  };
  const slotsOf = (x: Tuple) => space.reactions[x.r].slots;
  const valid = (x: Tuple) =>
    !zipWouldThrow(
      rd,
      x.t.map((i, s) => slotsOf(x)[s].smiles[i]),
    );
  const rdkit = () => run((x) => (valid(x) ? zipFingerprint(rd, slotsOf(x), x.t) : undefined));
  const ours = () =>
    run((x) => ringZipFingerprint(rd, slotsOf(x), x.t, space.reactions[x.r].info.ringForming) ?? undefined);
  rdkit();
  const cold = ours();
  const stats = { ...ringZipStats };
  const a = rdkit();
  const b = ours();
  let differ = 0;
  let compared = 0;
  a.fps.forEach((fp, k) => {
    const o = b.fps[k];
    if (!fp || !o) return;
    compared++;
    if (!fp.every((v, j) => v === o[j])) differ++;
  });
  const us = (ms: number) => ((ms * 1000) / tuples.length).toFixed(1);
  console.log(
    `${mode}: ${tuples.length} tuples; ring cores cold ${us(cold.ms)} µs/tuple (hits ${stats.hits}, ` +
      `new pairs ${stats.misses}, of them disagreeing ${stats.mismatches}, refused ${stats.refused}), ` +
      `warm ${us(b.ms)} µs; RDKit zip warm ${us(a.ms)} µs (${(a.ms / b.ms).toFixed(1)}×); ` +
      `fingerprints compared ${compared}, different ${differ}`,
  );
}
