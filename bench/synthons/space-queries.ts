/**
 * Per-query timings of ours on an already built (large) space, beside RDKit's from a peer.py result
 * on the same space file and queries: for the ≥10^9-product AutoGrow4 space, whose build (ours) and
 * synthon fingerprints (RDKit) take minutes, so run.ts's build-and-run-both is split in two.
 * Similarity: the top k (similarityTopK, as /molsearch serves it) and the hits above --cutoff (at
 * most --max-hits, like the peer's maxHits); substructure: the first --max-hits products.
 *
 *   source scripts/env.sh && node bench/synthons/space-queries.ts --space data/spaces/zinc15_autogrow4_space \
 *     --queries q.json [--peer peer.json] [--k 100] [--cutoff 0.5] [--max-hits 100] [--timeout-s 60]
 *     [--reactions join|other]   (only the reactions searched with join environments, or the others)
 *     [--sss-passes 2]   (the substructure queries run twice: cold, then warm)
 *     [--warm-up DIR]    (first the space thread's warm-up (warm-up.ts) on the small space in DIR)
 *     [--prepare]        (then what the space thread does while idle after it: prepare.ts)
 *     [--distinct]       (the k best distinct products, as /molsearch and v2 search serve them)
 *     [--passes 2]       (the similarity queries again in the same process: a long-lived space
 *                         thread's caches, JIT and RDKit warm, as the service serves them)
 *     [--warm-with Q]    (first the similarity queries of the file Q, untimed: a thread that has
 *                         served other queries, without these queries' own work cached)
 *     (--cutoff none: the top k only)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { getRDKit } from '../../engine/chem/rdkit.ts';
import { MORGAN_DETAILS } from '../../engine/chem/fingerprint.ts';
import { openSpace } from '../../engine/synthons/space.ts';
import { similaritySearch } from '../../engine/synthons/similarity.ts';
import { similarityTopK } from '../../engine/synthons/similarity-topk.ts';
import { distinctTopK } from '../../engine/synthons/similarity-distinct.ts';
import { substructureSearch } from '../../engine/synthons/substructure.ts';
import { warmUp } from '../../engine/synthons/warm-up.ts';
import { prepareSimilarity } from '../../engine/synthons/prepare.ts';
import { joinable } from '../../engine/synthons/join-bits.ts';
import { slotJoinEnvs } from '../../engine/synthons/join-walk.ts';

const { values } = parseArgs({
  options: {
    space: { type: 'string' },
    queries: { type: 'string' },
    peer: { type: 'string' },
    k: { type: 'string', default: '100' },
    cutoff: { type: 'string', default: '0.5' },
    'max-hits': { type: 'string', default: '100' },
    'timeout-s': { type: 'string', default: '60' },
    reactions: { type: 'string' },
    'sss-passes': { type: 'string', default: '1' },
    'warm-up': { type: 'string' },
    prepare: { type: 'boolean', default: false },
    distinct: { type: 'boolean', default: false },
    passes: { type: 'string', default: '1' },
    'warm-with': { type: 'string' },
  },
});
const timeoutMs = Number(values['timeout-s']) * 1000;
const maxHits = Number(values['max-hits']);
const rd = await getRDKit();
let t = performance.now();
const space = await openSpace(values.space!);
const c = space.manifest.counts;
console.log(
  `${space.manifest.id}: ${c.reactions} reactions, ${c.synthons} synthons, ${c.products} products; ` +
    `open ${((performance.now() - t) / 1000).toFixed(1)} s, heap ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB rss`,
);
// --warm-up DIR: what the service's space thread does before its first search, on another space
// (so the measured space's columns stay cold).
if (values['warm-up']) {
  const w = warmUp(rd, [await openSpace(values['warm-up'])]);
  console.log(`warm-up on ${w?.space}: ${w?.ms} ms`);
}
// --prepare: the query-independent work the service's space thread does while idle (prepare.ts),
// timed apart from the queries, as RDKit's space load and synthon fingerprints are in peer.py.
if (values.prepare) {
  const ms = await prepareSimilarity(space, async () => {}, rd);
  const rss = (process.memoryUsage().rss / 2 ** 20).toFixed(0);
  console.log(`prepared for similarity in ${(ms / 1000).toFixed(1)} s, ${rss} MB rss`);
}
// --reactions join | other: only the reactions searched with join environments (two synthons,
// one single-bond join, no ring closed: join-walk.ts), or only the others.
const withJoinEnvs = (r: (typeof space.reactions)[number]): boolean =>
  joinable(r.info) && r.slots.every((s) => slotJoinEnvs(s) !== undefined);
const pickReactions =
  values.reactions === undefined
    ? undefined
    : space.reactions.filter((r) => withJoinEnvs(r) === (values.reactions === 'join')).map((r) => r.info.id);
if (pickReactions) {
  const n = space.reactions
    .filter((r) => pickReactions.includes(r.info.id))
    .reduce((p, r) => p + r.info.products, 0);
  console.log(`only ${values.reactions} reactions: ${pickReactions.length}, ${n} products`);
}
// A similarity query is a SMILES, or [SMILES, cutoff] as peer_groups.py reads them: its own
// cutoff for the search above one (the same threshold RDKit is handed).
const q = JSON.parse(readFileSync(values.queries!, 'utf8')) as {
  similarity: Array<string | [string, number]>;
  substructure: string[];
};
const simQueries = (q.similarity ?? []).map((e) =>
  typeof e === 'string' ? { smiles: e } : { smiles: e[0], cutoff: e[1] },
);
q.substructure ??= [];
const peer = values.peer
  ? (JSON.parse(readFileSync(values.peer, 'utf8')) as {
      similarity?: Array<{ seconds: number; hits: string[] }>;
      substructure?: Array<{ seconds: number; seconds_with_smiles?: number; hits: string[] }>;
    })
  : undefined;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
// CPU milliseconds of this process since `from`: the fair measure on a shared, loaded machine.
const cpuSince = (from: NodeJS.CpuUsage): number => {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1000;
};
if (values['warm-with']) {
  const w = JSON.parse(readFileSync(values['warm-with'], 'utf8')) as { similarity: string[] };
  t = performance.now();
  for (const smiles of w.similarity) {
    const mol = rd.get_mol(smiles)!;
    const fp = new Uint8Array(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
    mol.delete();
    similarityTopK(rd, space, fp, Number(values.k), { timeoutMs });
  }
  console.log(`warmed with ${w.similarity.length} other queries in ${s(performance.now() - t)}`);
}
for (let pass = 1; pass <= Number(values.passes); pass++)
  simQueries.forEach(({ smiles, cutoff }, i) => {
    const mol = rd.get_mol(smiles)!;
    const fp = new Uint8Array(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
    mol.delete();
    t = performance.now();
    let c0 = process.cpuUsage();
    const opts = { timeoutMs, reactions: pickReactions };
    const top = values.distinct
      ? distinctTopK(rd, space, fp, Number(values.k), opts)
      : similarityTopK(rd, space, fp, Number(values.k), opts);
    const topMs = performance.now() - t;
    const topCpu = cpuSince(c0);
    const p = peer?.similarity?.[i];
    const last = top.hits[top.hits.length - 1];
    let line =
      `sim${pass > 1 ? ` (pass ${pass})` : ''} q${i} ${smiles}: top-${values.k} ${s(topMs)} wall, ${s(topCpu)} CPU (${top.hits.length} hits, ` +
      `best ${top.hits[0]?.similarity.toFixed(3)}, k-th ${last?.similarity.toFixed(3)} (${last?.similarity}), threshold ${top.threshold.toFixed(3)}` +
      `, ${top.counts.candidates} candidates in the last step, ${top.scoredProducts} products scored` +
      `${top.timedOut ? `, TIMED OUT, proven above ${top.provenAbove ?? 'none'}` : ', exact'})`;
    if (values.cutoff !== 'none') {
      t = performance.now();
      c0 = process.cpuUsage();
      const threshold = cutoff ?? Number(values.cutoff);
      const cut = similaritySearch(rd, space, fp, {
        threshold,
        maxHits,
        timeoutMs,
        reactions: pickReactions,
      });
      line +=
        ` | >= ${threshold} ${s(performance.now() - t)} wall, ${s(cpuSince(c0))} CPU (${cut.hits.length} hits, ` +
        `${cut.counts.candidates} candidates${cut.timedOut ? ', TIMED OUT' : ''})`;
    }
    console.log(line + (p ? ` | RDKit ${p.seconds.toFixed(2)} s (${p.hits.length} hits)` : ''));
  });
// --sss-passes 2: the substructure queries again in the same process (warm: JIT, RDKit's WASM
// tiers and the per-process synthon-graph cache), as a long-lived space thread serves them.
for (let pass = 1; pass <= Number(values['sss-passes']); pass++)
  q.substructure.forEach((smarts, i) => {
    t = performance.now();
    const c0 = process.cpuUsage();
    const r = substructureSearch(rd, space, smarts, { maxHits, timeoutMs });
    const wall = performance.now() - t;
    const p = peer?.substructure?.[i];
    const withSmiles =
      p?.seconds_with_smiles === undefined ? '' : `, ${p.seconds_with_smiles.toFixed(2)} s with SMILES`;
    console.log(
      `sss${pass > 1 ? ` (pass ${pass})` : ''} ${smarts}: ${s(wall)} wall, ${s(cpuSince(c0))} CPU (${r.hits.length} hits, ` +
        `${r.examined} examined, ${r.fragmentMatches} synthon-fragment matches${r.timedOut ? ', TIMED OUT' : ''})` +
        (p
          ? ` | RDKit ${p.seconds.toFixed(2)} s${withSmiles} (${p.hits.length} hits), ` +
            `ratio ${(p.seconds / (wall / 1000)).toFixed(1)}×`
          : ''),
    );
  });
