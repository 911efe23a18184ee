/**
 * Catalog 3D stage throughput (issue 9): molecules per second and per CPU-second of the real stage
 * (catalog3dWorkflow on a Temporal dev server, the Node stage activities, the Python chem3d worker)
 * on a seeded sample of the bundled ZINC15 catalog, beside Python RDKit's ETKDGv3 alone on the same
 * molecules in the same run (bench/shape/etkdg_peer.py): our overhead ratio.
 *
 *   node bench/shape/stage-bench.ts [--n 500] [--confs 3] [--part-rows 64] [--concurrency 2] [--keep ID]
 *
 * The stage's catalog is left under bench/out/shape/stage/catalogs/<id> (3D-ready, real conformers):
 * bench/shape/job-bench.ts builds its 100,000-row catalog from it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Client, Connection } from '@temporalio/client';
import { buildCatalog } from '../../engine/catalog/index.ts';
import { createCatalog3dActivities } from '../../activities/catalog3d.ts';
import { startWorkers } from '../../worker/worker.ts';
import { createLogger } from '../../platform/logger.ts';
import { resolveTemporalCli } from '../../platform/temporal/cli.ts';
import { startDevServer } from '../../platform/temporal/dev-server.ts';
import { ensureChem3dPython, startChem3dWorker } from '../../platform/chem3d/process.ts';
import { freePort } from '../../testkit/ports.ts';
import {
  CHEM3D_WORKFLOWS,
  chem3dQueue,
  taskQueue,
  type Catalog3dInput,
  type Catalog3dResult,
} from '../../workflows/contracts.ts';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const n = arg('--n', 500);
const confs = arg('--confs', 3);
const partRows = arg('--part-rows', 64);
const concurrency = arg('--concurrency', 2);
const repo = resolve(import.meta.dirname, '../..');
// The first-pass recipe (3 conformers) keeps the plain id: bench/shape/job-bench.ts reads it.
const id = confs === 3 ? `zinc-sample-${n}` : `zinc-sample-${n}-c${confs}`;
const root = join(repo, 'bench/out/shape/stage');
const out = join(root, 'runs', id);

/** CPU seconds (user + system, all threads) of a live process, from /proc. */
const procCpu = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
/** Peak resident memory (MB) of a live process, from /proc. */
const procPeakMb = (pid: number) =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

// A seeded sample (xorshift32, seed 1) of the ZINC15 catalog's rows: its file is sorted by size.
const rows = gunzipSync(readFileSync(join(repo, 'catalogs/sources/zinc15_sample.tsv.gz')))
  .toString('utf8')
  .split('\n')
  .slice(1)
  .filter(Boolean);
let s = 1;
const rand = () => {
  s ^= s << 13;
  s >>>= 0;
  s ^= s >>> 17;
  s ^= s << 5;
  s >>>= 0;
  return s / 2 ** 32;
};
for (let i = rows.length - 1; i > 0; i--) {
  const j = Math.floor(rand() * (i + 1));
  [rows[i], rows[j]] = [rows[j], rows[i]];
}
const sample = rows.slice(0, n);
await rm(out, { recursive: true, force: true });
await rm(join(root, 'catalogs', id), { recursive: true, force: true });
await mkdir(out, { recursive: true });
await writeFile(join(out, 'sample.tsv'), ['smiles\tid', ...sample].join('\n') + '\n');
await writeFile(join(out, 'sample.smi'), sample.map((r) => r.split('\t')[0]).join('\n') + '\n');
const dir = join(root, 'catalogs', id);
await buildCatalog({
  input: join(out, 'sample.tsv'),
  outDir: dir,
  id,
  name: `ZINC15 sample (${n}, seeded)`,
  smilesCol: 'smiles',
  idCol: 'id',
  delimiter: '\t',
  threads: 1,
  progress: false,
});

const log = createLogger({ level: 'warn' });
const port = await freePort();
const temporal = await startDevServer({
  cli: resolveTemporalCli({ toolsDir: join(repo, '.tools') }),
  port,
  logFile: join(out, 'temporal.log'),
});
const address = `127.0.0.1:${port}`;
const prefix = `stagebench-${process.pid}`;
const node = await startWorkers({
  address,
  namespace: 'default',
  prefix,
  activities: createCatalog3dActivities({ log }),
  kinds: ['orchestration', 'scan'],
  schedules: false,
  log,
});
const py = await startChem3dWorker({
  python: ensureChem3dPython({ toolsDir: join(repo, '.tools') }),
  address,
  namespace: 'default',
  prefix,
  concurrency,
  logFile: join(out, 'chem3d.log'),
});
const figures: Record<string, unknown> = {
  molecules: n,
  confs,
  partRows,
  concurrency,
  load_before: loadavg(),
};
try {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const py0 = procCpu(py.pid);
  const node0 = process.cpuUsage();
  const t0 = performance.now();
  const result: Catalog3dResult = await client.workflow.execute(CHEM3D_WORKFLOWS.catalog3d, {
    taskQueue: taskQueue(prefix, 'orchestration'),
    workflowId: `stage-bench-${id}-${process.pid}`,
    args: [
      {
        dir,
        queues: { node: taskQueue(prefix, 'scan'), chem3d: chem3dQueue(prefix, 'catalog') },
        confs,
        partRows,
        concurrency,
      } satisfies Catalog3dInput,
    ],
  });
  const wall = (performance.now() - t0) / 1000;
  const pyCpu = procCpu(py.pid) - py0;
  const nc = process.cpuUsage(node0);
  const nodeCpu = (nc.user + nc.system) / 1e6;
  await connection.close();
  figures.stage = {
    ...result,
    wall_s: +wall.toFixed(1),
    chem3d_cpu_s: +pyCpu.toFixed(1),
    node_cpu_s: +nodeCpu.toFixed(1),
    mol_per_s: +(n / wall).toFixed(2),
    mol_per_cpu_s: +(n / (pyCpu + nodeCpu)).toFixed(2),
    chem3d_peak_rss_mb: Math.round(procPeakMb(py.pid)),
    node_peak_rss_mb: Math.round(procPeakMb(process.pid)),
  };
  figures.load_after_stage = loadavg();
  console.error('stage', JSON.stringify(figures.stage));
  // The peer in the same run, right after, same molecules, same conformers asked, same parallelism.
  const peer = JSON.parse(
    execFileSync(
      join(repo, '.tools/chem3d/bin/python'),
      [
        join(import.meta.dirname, 'etkdg_peer.py'),
        join(out, 'sample.smi'),
        String(confs),
        String(concurrency),
      ],
      { encoding: 'utf8' },
    ),
  ) as { molecules: number; embedded: number; conformers: number; wall_s: number; cpu_s: number };
  figures.peer_etkdg = {
    ...peer,
    mol_per_s: +(n / peer.wall_s).toFixed(2),
    mol_per_cpu_s: +(n / peer.cpu_s).toFixed(2),
  };
  figures.load_after_peer = loadavg();
  const st = figures.stage as { wall_s: number; chem3d_cpu_s: number; node_cpu_s: number };
  figures.overhead = {
    wall: +(st.wall_s / peer.wall_s).toFixed(2),
    cpu: +((st.chem3d_cpu_s + st.node_cpu_s) / peer.cpu_s).toFixed(2),
  };
} finally {
  await py.stop();
  await node.shutdown();
  await temporal.stop();
}
await writeFile(join(root, `stage-bench-${id}.json`), JSON.stringify(figures, null, 1));
console.log(JSON.stringify(figures, null, 1));
