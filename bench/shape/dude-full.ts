/**
 * The full DUD-E protocol on the targets bench/shape/dude_full_prep.py has finished (its
 * OUT_DIR/done/<target>.json): per target, the first QUERIES actives (file order, 10 conformers)
 * screen every other active and every decoy (the prep's library conformers) by `morgan` (Tanimoto,
 * radius 2, 2,048 bits), `espsim_shape` and `espsim_electrostatic`: the service's exact stage at
 * `very_accurate` (scoreShortlist with `alignShapes` defaults on every molecule, as
 * api/services/shape-stages.ts calls it; no first stage). Per query EF1%, EF5%, ROCE1% and AUROC;
 * with QUERIES > 1 also the MAX fusion (a molecule's best score over the queries). Each target's
 * figures are written to OUT_DIR/results/<target>.q<QUERIES>.json as soon as it is scored (a rerun
 * scores only new targets); with --watch it waits for the prep to finish more targets. Finally the
 * mean and standard deviation over the scored targets go to stdout.
 *
 *   node bench/shape/dude-full.ts bench/out/shape/dudefull --queries 1 [--watch] [--threads 1]
 */
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { createShapePool } from '../../engine/shape/pool.ts';
import { efMax } from './vs-metrics.ts';
import { screenTarget, VS_METHODS as methods, type VsRecord } from './vs-screen.ts';

interface Rec extends VsRecord {
  kind: 'q' | 'a' | 'd';
  i: number;
  error?: string;
}
type Row = Record<string, number | string>;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    queries: { type: 'string', default: '1' },
    threads: { type: 'string', default: '1' },
    watch: { type: 'boolean', default: false },
    'poll-s': { type: 'string', default: '30' },
    expect: { type: 'string', default: '20' },
  },
});
const dir = positionals[0] ?? 'bench/out/shape/dudefull';
const nq = Number(values.queries);
mkdirSync(`${dir}/results`, { recursive: true });

async function readCache(target: string): Promise<Rec[]> {
  const recs = new Map<string, Rec>();
  const lines = createInterface({ input: createReadStream(`${dir}/cache/${target}.jsonl`) });
  for await (const line of lines) {
    let r: Rec;
    try {
      r = JSON.parse(line) as Rec;
    } catch {
      continue; // a line cut by a killed prep run; the rerun wrote it again
    }
    recs.set(`${r.kind}/${r.i}`, r);
  }
  return [...recs.values()];
}

const pool = createShapePool({ threads: Number(values.threads) });

async function scoreTarget(target: string): Promise<Row> {
  const t0 = performance.now();
  const done = JSON.parse(readFileSync(`${dir}/done/${target}.json`, 'utf8')) as Record<string, unknown>;
  const recs = await readCache(target);
  const queries = recs.filter((r) => r.kind === 'q' && r.i < nq).sort((x, y) => x.i - y.i);
  // The queries' own library entries are left out: a query finding itself is no enrichment.
  const library = recs.filter((r) => !(r.kind === 'a' && r.i < nq) && r.kind !== 'q');
  const ok = library.filter((r) => !r.error);
  const active = ok.map((r) => r.kind === 'a');
  const nAct = active.filter(Boolean).length;
  const row: Row = {
    library: ok.length,
    actives: nAct,
    decoys: ok.length - nAct,
    failed_library: library.length - ok.length,
    queries: queries.filter((q) => !q.error).length,
    ef1_max: efMax(ok.length, nAct, 0.01),
    confs: Number(done.confs),
    query_confs: Number(done.query_confs),
  };
  const good = queries.filter((q) => !q.error);
  const r = await screenTarget(pool, good, ok, active);
  for (const m of methods) {
    for (const [k, v] of Object.entries(r.perQuery[m])) row[`${m}_${k}`] = v;
    if (good.length > 1) {
      row[`${m}_max_ef1`] = r.max[m].ef1;
      row[`${m}_max_roce1`] = r.max[m].roce1;
      row[`${m}_max_auroc`] = r.max[m].auroc;
    }
  }
  row.score_s = Math.round((performance.now() - t0) / 1000);
  row.conformer_pairs = good.reduce((s, q) => s + q.confs, 0) * ok.reduce((s, r) => s + r.confs, 0);
  return row;
}

const finished = () =>
  readdirSync(`${dir}/done`)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();
const resultPath = (t: string) => `${dir}/results/${t}.q${nq}.json`;

for (;;) {
  const todo = finished().filter((t) => !existsSync(resultPath(t)));
  for (const t of todo) {
    const row = await scoreTarget(t);
    writeFileSync(resultPath(t), JSON.stringify({ target: t, ...row }));
    process.stderr.write(`${new Date().toISOString()} ${t} ${JSON.stringify(row)}\n`);
  }
  // The watcher ends when every expected target is scored, or when told to: touch OUT_DIR/STOP.
  if (!values.watch || finished().length >= Number(values.expect) || existsSync(`${dir}/STOP`)) break;
  await new Promise((r) => setTimeout(r, Number(values['poll-s']) * 1000));
}
await pool.close();

const rows: Record<string, Row> = {};
for (const t of finished())
  if (existsSync(resultPath(t))) rows[t] = JSON.parse(readFileSync(resultPath(t), 'utf8')) as Row;
const names = Object.keys(rows);
const keys = Object.keys(rows[names[0]] ?? {}).filter((k) => typeof rows[names[0]][k] === 'number');
const mean: Record<string, number> = {};
const sd: Record<string, number> = {};
for (const k of keys) {
  const v = names.map((t) => rows[t][k] as number);
  mean[k] = v.reduce((s, x) => s + x, 0) / v.length;
  sd[k] = Math.sqrt(v.reduce((s, x) => s + (x - mean[k]) ** 2, 0) / (v.length - 1 || 1));
}
console.log(JSON.stringify({ queries: nq, targets_scored: names, mean, sd, targets: rows }, null, 1));
