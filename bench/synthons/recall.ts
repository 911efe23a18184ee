/**
 * Recall benchmark, our side: similarity top-k and substructure over a ≥10^6-product sub-space of
 * the AutoGrow4 × ZINC15 space, against the exhaustive enumeration written by
 * recall_exhaustive.py (RDKit enumerates, parses and scores every product) and, when given, RDKit
 * SynthonSpaceSearch's hits on the same file and queries (recall_exhaustive.py peer).
 *
 * Recall@k of a query: the fraction of our k hits whose product is among the exhaustive top k
 * (every product tied with the k-th score counts) with the same score. Substructure recall: the
 * fraction of the exhaustive matching products we return (and precision: ours that match).
 *
 * Two steps, so ours can run while the exhaustive enumeration does (same queries file):
 *   source scripts/env.sh && node bench/synthons/recall.ts run --space /tmp/sub.txt --queries q.json \
 *     --out ours.json [--k 100] [--timeout-s 600]
 *   node bench/synthons/recall.ts compare --ours ours.json --truth truth.json [--peer peer.json]
 * `run --estimate N` measures similarityTopK's estimate stage alone: the top k among the first N
 * tuples by estimate (similarity-estimate.ts), each scored exactly.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { getRDKit } from '../../engine/chem/rdkit.ts';
import { FP_BYTES, MORGAN_DETAILS } from '../../engine/chem/fingerprint.ts';
import { buildSpace } from '../../engine/synthons/build-space.ts';
import { openSpace } from '../../engine/synthons/space.ts';
import { similarityTopK } from '../../engine/synthons/similarity-topk.ts';
import { estimateCandidates } from '../../engine/synthons/similarity-estimate.ts';
import { scoreTuple } from '../../engine/synthons/score-tuple.ts';
import { bestScored, validCount } from '../../engine/synthons/similarity-scored.ts';
import type { OpenSpace } from '../../engine/synthons/space.ts';
import { substructureSearch } from '../../engine/synthons/substructure.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    space: { type: 'string' },
    queries: { type: 'string' },
    out: { type: 'string', default: 'bench/out/synthons/recall-ours.json' },
    // compare: one or more runs' files (comma-separated); a later file's entry for a query wins.
    ours: { type: 'string' },
    truth: { type: 'string' },
    peer: { type: 'string' },
    k: { type: 'string', default: '100' },
    'timeout-s': { type: 'string', default: '600' },
    // Only similarityTopK's estimate stage: the first N tuples by estimate, scored exactly.
    estimate: { type: 'string' },
  },
});
interface Ours {
  products: number;
  synthons: number;
  buildS: number;
  k: number;
  similarity: Array<{
    query: string;
    seconds: number;
    threshold: number;
    candidates: number;
    assembled: number;
    timedOut: boolean;
    top: Array<[string, number]>;
  }>;
  substructure: Array<{
    smarts: string;
    seconds: number;
    examined: number;
    timedOut: boolean;
    hits: string[];
  }>;
}
interface Truth {
  products: number;
  invalid: number;
  k: number;
  wall_s: number;
  cpu_s: number;
  similarity: Array<{ query: string; kth: number; top: Array<[string, number]> }>;
  substructure: Array<{ smarts: string; hits: string[] }>;
}
interface Peer {
  prepare_s: number;
  similarity: Array<{ seconds: number; timed_out: boolean; top: Array<[string, number]> }>;
  substructure: Array<{ seconds: number; timed_out: boolean; hits: string[] }>;
}
const rd = await getRDKit();
const k = Number(values.k);

/** The top k among the first n tuples by estimate (similarity-estimate.ts), each scored exactly. */
function estimateOnly(space: OpenSpace, fp: Uint8Array, n: number) {
  const all = space.reactions.map((_, r) => r);
  const scored = new Map<string, number | null>();
  const buf = new Uint8Array(FP_BYTES);
  for (const c of estimateCandidates(space, fp, all, n)) scoreTuple(rd, space, fp, c, buf, scored);
  const hits = bestScored(rd, space, scored, k, { invalid: 0 });
  const assembled = validCount(scored);
  return { hits, threshold: 0, timedOut: true, counts: { candidates: n, assembled } };
}

async function run(): Promise<void> {
  const q = JSON.parse(readFileSync(values.queries!, 'utf8')) as {
    similarity: string[];
    substructure: string[];
  };
  const timeoutMs = Number(values['timeout-s']) * 1000;
  let t = performance.now();
  const dir = join(tmpdir(), `recall-space-${process.pid}`);
  const built = await buildSpace({ input: values.space!, out: dir, id: 'autogrow4_sub' });
  const buildS = (performance.now() - t) / 1000;
  const space = await openSpace(dir);
  const c = built.manifest.counts;
  console.log(
    `sub-space: ${c.reactions} reactions, ${c.synthons} synthons, ${c.products} products; build ${buildS.toFixed(1)} s`,
  );
  const out: Ours = {
    products: c.products,
    synthons: c.synthons,
    buildS,
    k,
    similarity: [],
    substructure: [],
  };
  for (const query of q.similarity) {
    const mol = rd.get_mol(query)!;
    const fp = new Uint8Array(mol.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
    mol.delete();
    t = performance.now();
    const r = values.estimate
      ? estimateOnly(space, fp, Number(values.estimate))
      : similarityTopK(rd, space, fp, k, { timeoutMs });
    const seconds = (performance.now() - t) / 1000;
    out.similarity.push({
      query,
      seconds,
      threshold: r.threshold,
      candidates: r.counts.candidates,
      assembled: r.counts.assembled,
      timedOut: r.timedOut,
      top: r.hits.map((h) => [h.smiles, Number(h.similarity.toFixed(6))]),
    });
    console.log(
      `sim ${query}: ${seconds.toFixed(1)} s, threshold ${r.threshold}, ${r.counts.candidates} candidates, ` +
        `${r.counts.assembled} scored${r.timedOut ? ', TIMED OUT' : ''}`,
    );
    writeFileSync(values.out!, JSON.stringify(out));
  }
  for (const smarts of q.substructure) {
    t = performance.now();
    const r = substructureSearch(rd, space, smarts, { maxHits: Infinity, maxProducts: Infinity, timeoutMs });
    const seconds = (performance.now() - t) / 1000;
    out.substructure.push({
      smarts,
      seconds,
      examined: r.examined,
      timedOut: r.timedOut,
      hits: r.hits.map((h) => h.smiles),
    });
    console.log(
      `sss ${smarts}: ${seconds.toFixed(1)} s, ${r.hits.length} hits, ${r.examined} assembled${r.timedOut ? ', TIMED OUT' : ''}`,
    );
    writeFileSync(values.out!, JSON.stringify(out));
  }
  rmSync(dir, { recursive: true, force: true });
}

function compare(): void {
  const runs = values.ours!.split(',').map((f) => JSON.parse(readFileSync(f, 'utf8')) as Ours);
  const ours = runs[0];
  const simOf = (q: string) =>
    runs
      .map((r) => r.similarity.find((x) => x.query === q))
      .filter(Boolean)
      .pop()!;
  const sssOf = (q: string) =>
    runs
      .map((r) => r.substructure.find((x) => x.smarts === q))
      .filter(Boolean)
      .pop()!;
  const truth = JSON.parse(readFileSync(values.truth!, 'utf8')) as Truth;
  const peer = values.peer ? (JSON.parse(readFileSync(values.peer, 'utf8')) as Peer) : undefined;
  // Every side's SMILES in one canonical form (MinimalLib's, as our hits are written).
  const canon = (smiles: string): string => {
    const m = rd.get_mol(smiles);
    try {
      return m?.is_valid() ? m.get_smiles() : smiles;
    } finally {
      m?.delete();
    }
  };
  const top = (x: Array<[string, number]>) => x.map(([s, v]) => [canon(s), v] as [string, number]);
  /** Recall of `hits` against the exhaustive top: in the top (ties with the k-th count) with its score. */
  const recallOf = (hits: Array<[string, number]>, want: Array<[string, number]>): number => {
    const score = new Map(want);
    const good = hits.filter(([smi, s]) => score.has(smi) && Math.abs(score.get(smi)! - s) < 1e-5).length;
    return good / Math.min(k, want.length);
  };
  console.log(
    `sub-space: ${ours.products} products (exhaustive: ${truth.products} valid, ${truth.invalid} invalid; ` +
      `${truth.wall_s.toFixed(0)} s wall, ${truth.cpu_s.toFixed(0)} s CPU); our build ${ours.buildS.toFixed(1)} s`,
  );
  let oursSum = 0;
  let peerSum = 0;
  truth.similarity.forEach((e, i) => {
    const want = top(e.top);
    const o = simOf(e.query);
    const recall = recallOf(top(o.top), want);
    const p = peer?.similarity[i];
    const peerRecall = p ? recallOf(top(p.top), want) : 0;
    oursSum += recall;
    peerSum += peerRecall;
    console.log(
      `sim q${i} ${e.query} (k-th ${e.kth}): ours ${o.seconds.toFixed(1)} s recall ${recall.toFixed(3)} ` +
        `(${o.candidates} candidates, ${o.assembled} scored, threshold ${o.threshold}${o.timedOut ? ', TIMED OUT' : ''})` +
        (p
          ? ` | RDKit ${p.seconds.toFixed(1)} s recall ${peerRecall.toFixed(3)}${p.timed_out ? ' TIMED OUT' : ''}`
          : ''),
    );
  });
  const n = truth.similarity.length;
  console.log(
    `mean recall@${k}: ours ${(oursSum / n).toFixed(3)}${peer ? `, RDKit ${(peerSum / n).toFixed(3)}` : ''}`,
  );
  truth.substructure.forEach((e, i) => {
    const want = new Set(e.hits.map(canon));
    const o = sssOf(e.smarts);
    if (!o) return; // a similarity-only run
    const got = new Set(o.hits.map(canon));
    const recall = want.size ? [...want].filter((s) => got.has(s)).length / want.size : 1;
    const precision = got.size ? [...got].filter((s) => want.has(s)).length / got.size : 1;
    const p = peer?.substructure[i];
    const peerRecall = p
      ? want.size
        ? p.hits.map(canon).filter((s) => want.has(s)).length / want.size
        : 1
      : 0;
    console.log(
      `sss ${e.smarts}: ${want.size} products; ours ${o.seconds.toFixed(1)} s recall ${recall.toFixed(3)} precision ` +
        `${precision.toFixed(3)} (${o.examined} assembled${o.timedOut ? ', TIMED OUT' : ''})` +
        (p
          ? ` | RDKit ${p.seconds.toFixed(1)} s recall ${peerRecall.toFixed(3)}${p.timed_out ? ' TIMED OUT' : ''}`
          : ''),
    );
  });
}

mkdirSync(dirname(values.out!), { recursive: true });
if (positionals[0] === 'run') await run();
else if (positionals[0] === 'compare') compare();
else throw new Error('usage: recall.ts run|compare (see the header)');
