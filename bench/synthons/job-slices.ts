/**
 * A synthon similarity job's slices run one after another on a built space, as the workflow runs
 * them (workflows/synthon-job-workflow.ts) with and without the floor: each slice searched after
 * others finished goes down only to the best k-th score among them. Prints per-slice time, hits
 * and whether the slice hit its budget, and the merged top k of both runs (they must agree where
 * neither timed out). Sequential, so the floor of slice i is what a workflow with concurrency 1
 * would pass; with 4 at once the first four get none.
 *
 *   source scripts/env.sh && nice -n 10 node bench/synthons/job-slices.ts --space data/bench/ag4-space \
 *     --query 'CC(=O)Nc1ccc(O)cc1' [--k 100] [--timeout-s 60] [--modes floor,none]
 *     [--search-mode substructure|superstructure]   (a structure job's slices; the floor is unused)
 */
import { parseArgs } from 'node:util';
import { getRDKit } from '../../engine/chem/rdkit.ts';
import { openSpace } from '../../engine/synthons/space.ts';
import { compareHits, synthonJobSlice } from '../../engine/synthons/job-search.ts';
import type { SpaceHit } from '../../engine/synthons/similarity.ts';
import { sliceReactions } from '../../activities/synthon-jobs.ts';

const { values } = parseArgs({
  options: {
    space: { type: 'string' },
    query: { type: 'string' },
    k: { type: 'string', default: '100' },
    'timeout-s': { type: 'string', default: '60' },
    modes: { type: 'string', default: 'floor,none' },
    'search-mode': { type: 'string', default: 'similarity' },
  },
});
const k = Number(values.k);
const searchMode = values['search-mode'] as 'similarity' | 'substructure' | 'superstructure';
const timeoutMs = Number(values['timeout-s']) * 1000;
const rd = await getRDKit();
const space = await openSpace(values.space!);
const slices = sliceReactions(space.manifest);
console.log(
  `${space.manifest.id}: ${slices.length} slices, query ${values.query}, k ${k}, budget ${timeoutMs} ms`,
);

const summary: Record<string, unknown> = {};
for (const mode of values.modes!.split(',')) {
  let floor = 0;
  const hits: SpaceHit[] = [];
  let total = 0;
  let cut = 0;
  for (const [i, reactions] of slices.entries()) {
    const t0 = performance.now();
    const res = synthonJobSlice(rd, space, {
      mode: searchMode,
      query: values.query!,
      reactions,
      k,
      matchMode: 'fuzzy',
      timeoutMs,
      ...(mode === 'floor' && floor > 0 && searchMode === 'similarity' ? { floor } : {}),
    });
    const ms = performance.now() - t0;
    total += ms;
    if (res.timedOut) cut++;
    hits.push(...res.hits);
    const kth = res.hits.length >= k ? res.hits[k - 1].similarity : undefined;
    console.log(
      `${mode} slice ${i} (${reactions.length} reactions): ${(ms / 1000).toFixed(1)} s, ` +
        `${res.hits.length} hits, examined ${res.examined}, floor ${floor.toFixed(3)}` +
        `${res.timedOut ? ', TIMED OUT' : ''}${kth !== undefined ? `, k-th ${kth.toFixed(3)}` : ''}`,
    );
    if (kth !== undefined) floor = Math.max(floor, kth - 1e-9);
  }
  hits.sort(compareHits);
  const seen = new Set<string>();
  const top = hits.filter((h) => !seen.has(h.smiles) && !!seen.add(h.smiles)).slice(0, k);
  summary[mode] = {
    seconds: +(total / 1000).toFixed(1),
    timedOutSlices: cut,
    best: top[0]?.similarity,
    kth: top[k - 1]?.similarity,
    top: top.map((h) => [h.smiles, +h.similarity.toFixed(4)]),
  };
  console.log(`${mode}: ${(total / 1000).toFixed(1)} s over ${slices.length} slices, ${cut} timed out`);
}
const modes = Object.keys(summary) as string[];
if (modes.length === 2) {
  const [a, b] = modes.map((m) => (summary[m] as { top: [string, number][] }).top.map((x) => x.join(' ')));
  console.log(`merged top ${k} identical: ${JSON.stringify(a) === JSON.stringify(b)}`);
}
console.log(
  JSON.stringify(Object.fromEntries(modes.map((m) => [m, { ...(summary[m] as object), top: undefined }]))),
);
