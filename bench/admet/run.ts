/**
 * ADMET throughput and agreement benchmark: our serving path (RDKit parse, Morgan features, the 11
 * descriptors, the 22 ONNX models and their domain checks) on ONE thread, beside ADMET-AI (PyPI
 * admet-ai, Chemprop ensembles, torch with one thread) on the same molecules in the same run, with
 * Pearson and Spearman correlation per endpoint.
 *
 *   node bench/admet/run.ts [--n 10000] [--skip-peer] [--molecules FILE.smi(.gz)] [--out DIR]
 *
 * Writes bench/out/admet/{ours.csv, admet-ai.csv, admet-ai.json, results.json}.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { getRDKit } from '../../engine/chem/rdkit.ts';
import {
  ADMET_ENDPOINTS,
  ADMET_FEATURE_LENGTH,
  openAdmetModels,
  predictSmilesBatch,
  prepareAdmetRow,
  concatTables,
  type AdmetTable,
} from '../../engine/admet/index.ts';
import { pearson, spearman } from './stats.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(HERE, '..', '..');
const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '10000' },
    'skip-peer': { type: 'boolean' },
    molecules: { type: 'string', default: join(HERE, 'data', 'molecules-10k.smi.gz') },
    batch: { type: 'string', default: '256' },
    out: { type: 'string', default: join(ROOT, 'bench', 'out', 'admet') },
  },
});
const OUT = values.out!;
mkdirSync(OUT, { recursive: true });

const raw = readFileSync(values.molecules!);
const text = (values.molecules!.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
const smiles = text
  .split('\n')
  .map((l) => l.trim().split(/\s+/)[0])
  .filter(Boolean)
  .slice(0, Number(values.n));
const n = smiles.length;
const batch = Number(values.batch);
writeFileSync(join(OUT, 'molecules.smi'), smiles.join('\n') + '\n');

// ---- ours, one thread (this one), steady state ----
const tLoad = performance.now();
const rd = await getRDKit();
const models = await openAdmetModels({ intraOpThreads: 1 });
const loadMs = performance.now() - tLoad;
// Warm-up, not timed: V8 compiles the hot feature code on background threads during the first
// ~1,000 molecules, CPU that a steady-state server does not pay again.
for (let s = 0; s < Math.min(n, 1024); s += batch)
  await predictSmilesBatch(rd, models, smiles.slice(s, Math.min(s + batch, 1024)));
const c0 = process.cpuUsage();
const t0 = performance.now();
const parts: AdmetTable[] = [];
for (let s = 0; s < n; s += batch)
  parts.push(await predictSmilesBatch(rd, models, smiles.slice(s, s + batch)));
const oursMs = performance.now() - t0;
const cpu = process.cpuUsage(c0);
// CPU time of every thread of this process (onnxruntime included): robust to other load on the machine.
const oursCpuS = (cpu.user + cpu.system) / 1e6;
const ours = concatTables(parts);
// Breakdown: the parse + features + descriptors part alone.
const feats = new Float32Array(batch * ADMET_FEATURE_LENGTH);
const tf = performance.now();
for (let i = 0; i < n; i++) prepareAdmetRow(rd, smiles[i], feats, i % batch);
const featuresMs = performance.now() - tf;
await models.close();
const failed = ours.errors.filter(Boolean).length;
const oursRate = n / (oursMs / 1000);
const oursCpuRate = n / oursCpuS;
writeFileSync(
  join(OUT, 'ours.csv'),
  [
    'smiles,' + ADMET_ENDPOINTS.join(','),
    ...smiles.map((s, i) => [s, ...ADMET_ENDPOINTS.map((_, e) => ours.scores[e * n + i])].join(',')),
  ].join('\n') + '\n',
);
console.log(
  `ours: ${n} molecules (${failed} unparsable) in ${(oursMs / 1000).toFixed(2)} s on 1 thread = ${oursRate.toFixed(0)} mol/s wall, ${oursCpuRate.toFixed(0)} mol/CPU-s (parse+features+descriptors ${((featuresMs / oursMs) * 100).toFixed(0)}% of it); load ${loadMs.toFixed(0)} ms`,
);

// ---- ADMET-AI, one thread, same molecules ----
let peer:
  | {
      version: string;
      molecules_per_second: number;
      molecules_per_cpu_second: number;
      predict_seconds: number;
      load_seconds: number;
      torch: string;
    }
  | undefined;
const py = join(ROOT, '.tools', 'admetai', 'bin', 'python');
if (!values['skip-peer'] && existsSync(py)) {
  const r = spawnSync(
    py,
    [
      join(HERE, 'admet_ai_peer.py'),
      join(OUT, 'molecules.smi'),
      join(OUT, 'admet-ai.csv'),
      join(OUT, 'admet-ai.json'),
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1', CUDA_VISIBLE_DEVICES: '' },
    },
  );
  if (r.status !== 0) throw new Error(`ADMET-AI peer failed (${r.status})`);
  peer = JSON.parse(readFileSync(join(OUT, 'admet-ai.json'), 'utf8'));
  console.log(
    `admet-ai ${peer!.version} (torch ${peer!.torch}): ${peer!.predict_seconds.toFixed(1)} s = ${peer!.molecules_per_second.toFixed(1)} mol/s wall, ${peer!.molecules_per_cpu_second.toFixed(1)} mol/CPU-s; load ${peer!.load_seconds.toFixed(1)} s`,
  );
} else if (!values['skip-peer']) {
  console.log(
    `ADMET-AI venv not found at ${py}: python -m venv .tools/admetai && .tools/admetai/bin/pip install torch==2.13.0 admet-ai`,
  );
}

// ---- agreement per endpoint ----
const agreement: Record<
  string,
  { pearson: number; spearman: number; n: number; in_domain: number; spearman_in_domain: number }
> = {};
if (peer) {
  const lines = readFileSync(join(OUT, 'admet-ai.csv'), 'utf8').trim().split('\n');
  const header = lines[0].split(',');
  const rows = lines.slice(1).map((l) => l.split(','));
  ADMET_ENDPOINTS.forEach((key, e) => {
    const c = header.indexOf(key);
    const a: number[] = [];
    const b: number[] = [];
    const ai: number[] = [];
    const bi: number[] = [];
    rows.forEach((r, i) => {
      const x = ours.scores[e * n + i];
      const y = Number(r[c]);
      if (!Number.isFinite(x) || !Number.isFinite(y)) return;
      a.push(x);
      b.push(y);
      // The same comparison restricted to molecules inside our model's applicability domain.
      if (((ours.ood[i] >>> e) & 1) === 0) {
        ai.push(x);
        bi.push(y);
      }
    });
    agreement[key] = {
      pearson: pearson(a, b),
      spearman: spearman(a, b),
      n: a.length,
      in_domain: ai.length,
      spearman_in_domain: ai.length > 2 ? spearman(ai, bi) : NaN,
    };
  });
  console.log(
    '\n| endpoint | Pearson | Spearman | in domain | Spearman (in domain) |\n|---|---|---|---|---|',
  );
  for (const [k, v] of Object.entries(agreement))
    console.log(
      `| ${k} | ${v.pearson.toFixed(3)} | ${v.spearman.toFixed(3)} | ${((v.in_domain / v.n) * 100).toFixed(0)} % | ${v.spearman_in_domain.toFixed(3)} |`,
    );
}
const results = {
  molecules: n,
  source: values.molecules,
  ours: {
    threads: 1,
    seconds: oursMs / 1000,
    molecules_per_second: oursRate,
    cpu_seconds: oursCpuS,
    molecules_per_cpu_second: oursCpuRate,
    features_share: featuresMs / oursMs,
    load_ms: loadMs,
    unparsable: failed,
  },
  admet_ai: peer ?? null,
  speedup: peer ? oursRate / peer.molecules_per_second : null,
  speedup_cpu: peer ? oursCpuRate / peer.molecules_per_cpu_second : null,
  agreement,
};
writeFileSync(join(OUT, 'results.json'), JSON.stringify(results, null, 1) + '\n');
if (peer)
  console.log(
    `\nspeed-up per core: ${results.speedup!.toFixed(1)}x (wall), ${results.speedup_cpu!.toFixed(1)}x (CPU time)`,
  );
