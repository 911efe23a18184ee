/**
 * What the ADMET step costs a catalog build: the same 10,000 molecules built on one thread with
 * and without predictions (`--no-admet`), CPU seconds of the build threads and wall seconds.
 *
 *   node bench/admet/build-cost.ts [--n 10000] [--threads 1]
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildCatalog } from '../../engine/catalog/index.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const { values } = parseArgs({
  options: { n: { type: 'string', default: '10000' }, threads: { type: 'string', default: '1' } },
});
const out = join(HERE, '..', 'out', 'admet', 'build');
const res: Record<string, { seconds: number; cpu_seconds: number; molecules: number; per_second: number }> =
  {};
for (const admet of [false, true]) {
  const dir = join(out, admet ? 'with-admet' : 'no-admet');
  await rm(dir, { recursive: true, force: true });
  const c0 = process.cpuUsage(); // all threads of this process: the build workers included
  const r = await buildCatalog({
    input: join(HERE, 'data', 'molecules-10k.smi.gz'),
    outDir: dir,
    id: 'bench',
    name: 'bench',
    smilesCol: '0',
    idCol: '1',
    delimiter: ' ',
    threads: Number(values.threads),
    limit: Number(values.n),
    progress: false,
    admet,
  });
  const cu = process.cpuUsage(c0);
  const cpu = (cu.user + cu.system) / 1e6;
  res[admet ? 'with_admet' : 'no_admet'] = {
    seconds: r.seconds,
    cpu_seconds: cpu,
    molecules: r.manifest.counts.molecules,
    per_second: r.manifest.counts.molecules / r.seconds,
  };
  console.log(
    `${admet ? 'with ADMET' : 'no ADMET  '}: ${r.manifest.counts.molecules} molecules in ${r.seconds.toFixed(1)} s = ${(r.manifest.counts.molecules / r.seconds).toFixed(0)} mol/s wall, ${cpu.toFixed(1)} CPU-s (${values.threads} thread)`,
  );
}
console.log(
  `ADMET step adds ${((res.with_admet.cpu_seconds / res.no_admet.cpu_seconds - 1) * 100).toFixed(0)}% CPU time, ${((res.with_admet.seconds / res.no_admet.seconds - 1) * 100).toFixed(0)}% wall time`,
);
