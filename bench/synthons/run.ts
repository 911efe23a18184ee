/**
 * Synthon-space benchmark: ours against RDKit's SynthonSpaceSearch (bench/synthons/peer.py) on the
 * same space file and the same queries, in one run; both single-threaded. Queries are products of
 * the space drawn with a fixed seed (find the analogues of a product). Reports per-query times,
 * their ratio, and hit-set agreement; with --brute-force the peer also enumerates the whole space,
 * giving both sides' recall against exhaustive search. See bench/synthons/README.md.
 *
 *   source scripts/env.sh && node bench/synthons/run.ts --space catalogs/spaces/sources/Syntons_5567.csv \
 *     [--queries 10 (0: substructure only)] [--seed 7] [--cutoff 0.5] [--brute-force] [--python .tools/pysyn/bin/python]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { getRDKit } from '../../engine/chem/rdkit.ts';
import { MORGAN_DETAILS } from '../../engine/chem/fingerprint.ts';
import { buildSpace } from '../../engine/synthons/build-space.ts';
import { openSpace } from '../../engine/synthons/space.ts';
import { sampleSpace } from '../../engine/synthons/sample.ts';
import { similaritySearch } from '../../engine/synthons/similarity.ts';
import { substructureSearch } from '../../engine/synthons/substructure.ts';

const { values } = parseArgs({
  options: {
    space: { type: 'string', default: 'catalogs/spaces/sources/idorsia_toy_space_a.txt' },
    queries: { type: 'string', default: '10' },
    seed: { type: 'string', default: '7' },
    cutoff: { type: 'string', default: '0.5' },
    'brute-force': { type: 'boolean', default: false },
    python: { type: 'string', default: '.tools/pysyn/bin/python' },
    // Space-separated SMARTS (they may hold commas and semicolons); both sides search each.
    sss: { type: 'string', default: 'c1ccncc1 C(=O)N FC(F)F' },
    'skip-substructure': { type: 'boolean', default: false },
  },
});
const cutoff = Number(values.cutoff);
const id = basename(values.space!).replace(/\.[^.]+$/, '');
const out = join('bench/out/synthons', id);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const rd = await getRDKit();

let t = performance.now();
const built = await buildSpace({ input: values.space!, out: join(out, 'space'), id });
const buildS = (performance.now() - t) / 1000;
t = performance.now();
const space = await openSpace(join(out, 'space'));
const openS = (performance.now() - t) / 1000;
const queries = sampleSpace(rd, space, Number(values.queries), Number(values.seed)).products.map(
  (p) => p.smiles,
);
const substructure = values['skip-substructure'] ? [] : values.sss!.split(/\s+/).filter(Boolean);
writeFileSync(join(out, 'queries.json'), JSON.stringify({ similarity: queries, substructure }));
console.log(
  `${id}: ${built.manifest.counts.products} products; our build ${buildS.toFixed(1)} s, open ${openS.toFixed(2)} s`,
);

console.log(`RDKit side (${values.python} bench/synthons/peer.py) ...`);
const peerArgs = ['bench/synthons/peer.py', '--space', values.space!, '--queries', join(out, 'queries.json')];
peerArgs.push('--out', join(out, 'peer.json'), '--cutoff', String(cutoff));
if (values['brute-force']) peerArgs.push('--brute-force');
execFileSync(values.python!, peerArgs, { stdio: ['ignore', 'ignore', 'ignore'] });
const peer = JSON.parse(readFileSync(join(out, 'peer.json'), 'utf8')) as {
  rdkit_version: string;
  read_s: number;
  synthon_fps_s: number;
  similarity: Array<{ query: string; seconds: number; hits: string[] }>;
  substructure: Array<{ query: string; seconds: number; seconds_with_smiles?: number; hits: string[] }>;
  brute_force?: { products: number; seconds: number; above_cutoff: string[][] };
};
console.log(
  `RDKit ${peer.rdkit_version}: read ${peer.read_s.toFixed(2)} s, synthon fingerprints ${peer.synthon_fps_s.toFixed(1)} s`,
);

const rows: string[] = [];
let oursTotal = 0;
let peerTotal = 0;
let bruteWant = 0;
let oursFound = 0;
let peerFound = 0;
let agreeOursHasPeer = 0;
let peerHits = 0;
queries.forEach((q, i) => {
  const mol = rd.get_mol(q)!;
  const fp = new Uint8Array(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
  mol.delete();
  const t0 = performance.now();
  const res = similaritySearch(rd, space, fp, { threshold: cutoff });
  const s = (performance.now() - t0) / 1000;
  oursTotal += s;
  const p = peer.similarity[i];
  peerTotal += p.seconds;
  const ours = new Set(res.hits.map((h) => h.smiles));
  peerHits += p.hits.length;
  agreeOursHasPeer += p.hits.filter((h) => ours.has(h)).length;
  let recall = '';
  if (peer.brute_force) {
    const want = peer.brute_force.above_cutoff[i];
    bruteWant += want.length;
    const peerSet = new Set(p.hits);
    oursFound += want.filter((w) => ours.has(w)).length;
    peerFound += want.filter((w) => peerSet.has(w)).length;
    recall = ` brute force ${want.length}`;
  }
  rows.push(
    `q${i} ours ${s.toFixed(3)} s (${res.hits.length} hits, ${res.counts.candidates} candidates) | ` +
      `RDKit ${p.seconds.toFixed(3)} s (${p.hits.length} hits) | ratio ${(p.seconds / s).toFixed(1)}x${recall}`,
  );
});
for (const r of rows) console.log(r);
// Substructure: hit counts compared (RDKit's hit SMILES differ from its own enumeration for products
// keeping an unpaired connector, so sets are compared by count; the tests compare sets).
const sssRows = peer.substructure.map((p) => {
  const t0 = performance.now();
  const res = substructureSearch(rd, space, p.query, { maxHits: 1e7, maxProducts: 1e7 });
  const s = (performance.now() - t0) / 1000;
  const n = new Set(res.hits.map((h) => h.smiles)).size;
  const withSmiles = p.seconds_with_smiles ?? p.seconds;
  console.log(
    `sss ${p.query} ours ${s.toFixed(3)} s (${n} hits, ${res.examined} assembled) | ` +
      `RDKit ${p.seconds.toFixed(3)} s, ${withSmiles.toFixed(3)} s with hit SMILES (${p.hits.length} hits) | ` +
      `ratio ${(p.seconds / s).toFixed(2)}x, ${(withSmiles / s).toFixed(2)}x with SMILES`,
  );
  return {
    query: p.query,
    ours: s,
    rdkit: p.seconds,
    rdkitWithSmiles: withSmiles,
    oursHits: n,
    rdkitHits: p.hits.length,
  };
});
const summary = {
  space: id,
  products: built.manifest.counts.products,
  ourBuildSeconds: buildS,
  rdkitReadPlusFpSeconds: peer.read_s + peer.synthon_fps_s,
  queries: queries.length,
  cutoff,
  // `--queries 0` runs the substructure queries alone.
  oursSecondsPerQuery: queries.length ? oursTotal / queries.length : null,
  rdkitSecondsPerQuery: queries.length ? peerTotal / queries.length : null,
  ratio: queries.length ? peerTotal / oursTotal : null,
  rdkitHitsAlsoFoundByOurs: `${agreeOursHasPeer}/${peerHits}`,
  substructure: sssRows,
  recall: peer.brute_force
    ? { bruteForceHits: bruteWant, ours: oursFound / bruteWant, rdkit: peerFound / bruteWant }
    : undefined,
};
console.log(JSON.stringify(summary, null, 2));
writeFileSync(join(out, 'summary.json'), JSON.stringify(summary, null, 2));
