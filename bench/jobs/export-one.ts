/**
 * One export of a job result, in its own process so peak memory is per format:
 * `node bench/jobs/export-one.ts OBJECTS_DIR RESULT_KEY FORMAT` prints one JSON line
 * {format, rows, bytes, ms, cpuMs, rssAfterDecodeMb, peakRssMb}; cpuMs (user + system, all threads of
 * the process) is the figure that a loaded machine distorts least.
 */
import { createLocalObjectStore } from '../../platform/object-store/index.ts';
import { createLogger } from '../../platform/logger.ts';
import { writeExport } from '../../activities/exports.ts';
import { decodeJobResult, type ExportFormat } from '../../engine/export/index.ts';

const [objectsDir, resultKey, format] = process.argv.slice(2);
const objects = createLocalObjectStore(objectsDir);
// Baseline: the decoded result alone (the export holds it while streaming).
decodeJobResult(await objects.getBytes(resultKey));
const rssAfterDecodeMb = process.memoryUsage().rss / 2 ** 20;
const log = createLogger({ level: 'warn', pretty: false });
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const r = await writeExport(objects, log, {
  downloadId: 'bench',
  jobName: 'bench',
  resultKey,
  format: format as ExportFormat,
  key: `bench-exports/result.${format}`,
  options: { includeProperties: true, includeMetadata: false, simTh: 0, dMin: 0, dMax: 1, propRanges: {} },
});
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
process.stdout.write(
  JSON.stringify({
    format,
    rows: r.rows,
    bytes: r.bytes,
    ms: Math.round(ms),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    rssAfterDecodeMb: Math.round(rssAfterDecodeMb),
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  }) + '\n',
);
