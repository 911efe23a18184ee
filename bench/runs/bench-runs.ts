/**
 * Benchmark of v2 runs: submission to first event (p50 over N single-item runs, observed through
 * the SSE stream), a 1000-item selection_batch run end to end, and SSE delivery rate (events per
 * second replaying a finished run's stream). Starts its own Temporal dev server (in memory),
 * PGlite (or DATABASE_URL), a local object store, the API and an in-process worker, over the
 * ChEMBL-drugs fixture library (1,203 molecules).
 *
 *   node bench/runs/bench-runs.ts [--runs 20] [--items 1000] [--concurrency 8]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { buildApp } from '../../api/app.ts';
import { createRunsService } from '../../api/services/runs.ts';
import { createSelectionsService } from '../../api/services/selections.ts';
import { createV2SearchService } from '../../api/services/v2-search.ts';
import type { SearchService } from '../../api/services/search-service.ts';
import { createActivities } from '../../activities/index.ts';
import { DEFAULT_TIER_LIMITS } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { createLocalObjectStore } from '../../platform/object-store/index.ts';
import { resolveTemporalCli } from '../../platform/temporal/cli.ts';
import { startDevServer } from '../../platform/temporal/dev-server.ts';
import { openStore } from '../../store/index.ts';
import { staticRegistry } from '../../engine/selection/index.ts';
import { createSubstructureRunner } from '../../engine/substructure/index.ts';
import { startWorkers } from '../../worker/worker.ts';
import { drugsLibrary } from '../../testkit/drugs-library.ts';
import { freePort } from '../../testkit/ports.ts';
import { createShapePool } from '../../engine/shape/index.ts';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    items: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '8' },
  },
});
const log = createLogger({ level: 'warn' });
const dir = mkdtempSync(join(tmpdir(), 'bench-runs-'));
const temporal = await startDevServer({
  cli: resolveTemporalCli({ toolsDir: resolve('.tools') }),
  port: await freePort(),
  uiPort: await freePort(),
});
const store = await openStore({
  databaseUrl: process.env.DATABASE_URL,
  pgliteDir: 'memory://',
  tierLimits: { ...DEFAULT_TIER_LIMITS },
});
const objects = createLocalObjectStore(join(dir, 'objects'));
const libraries = staticRegistry([await drugsLibrary()]);
const connection = await Connection.connect({ address: temporal.address });
const prefix = `bench-${process.pid}`;
const runs = createRunsService({
  runs: store.runs,
  libraries,
  objects,
  workflows: new Client({ connection }).workflow,
  taskQueuePrefix: prefix,
  concurrency: Number(args.concurrency),
});
const shapePool = createShapePool({ threads: 1 });
const workers = await startWorkers({
  address: temporal.address,
  namespace: 'default',
  prefix,
  // No 3D job runs here: the shape pool's thread starts on first use, so it stays idle.
  activities: createActivities({ log, store, objects, catalogDir: dir, libraries, shapePool }),
  log,
  kinds: ['orchestration', 'scan'],
});
const noSearch = {} as SearchService; // legacy search routes are not exercised
const app = await buildApp({
  log,
  accounts: store.accounts,
  search: noSearch,
  health: [],
  v2: {
    search: createV2SearchService({ libraries, substructure: createSubstructureRunner() }),
    selections: createSelectionsService({ libraries }),
    runs,
  },
  eventPollMs: 20,
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
const key = (await store.accounts.createApiKey({ user: 'bench', tier: 'enterprise' })).key;

const template = {
  database: { database_id: 'drugs' },
  strategy: { type: 'ranked' },
  objectives: [
    { type: 'similarity', direction: 'maximize', metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'q' },
  ],
  constraints: { presets: [{ preset_id: 'lipinski-ro5' }] },
  portfolio: { limit: 10 },
};
const smiles = [
  'CC(=O)Oc1ccccc1C(=O)O',
  'Cn1c(=O)c2c(ncn2C)n(C)c1=O',
  'CC(C)Cc1ccc(C(C)C(=O)O)cc1',
  'CN1CCC[C@H]1c1cccnc1',
  'OC(=O)c1ccccc1O',
];
const batch = (n: number) => ({
  schema_version: 'run/1',
  kind: 'selection_batch',
  selection_template: template,
  items: Array.from({ length: n }, (_, i) => ({
    id: `i${i}`,
    references: [{ id: 'q', structure: { format: 'smiles', value: smiles[i % smiles.length] } }],
  })),
});
const post = async (doc: unknown, idem: string) => {
  const r = await fetch(`${url}/api/v2/runs`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'idempotency-key': idem, 'content-type': 'application/json' },
    body: JSON.stringify(doc),
  });
  if (r.status !== 202) throw new Error(`submit answered ${r.status}: ${await r.text()}`);
  return (await r.json()) as { id: string };
};
/** Reads the SSE stream from `after`; resolves with (time to first event, events, seconds) at the terminal event. */
const stream = async (id: string, t0: number, after = 0) => {
  const res = await fetch(`${url}/api/v2/runs/${id}/events/stream?after=${after}`, {
    headers: { 'x-api-key': key },
  });
  let first = -1,
    n = 0,
    buf = '';
  const dec = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += dec.decode(chunk, { stream: true });
    const blocks = buf.split('\n\n');
    buf = blocks.pop()!;
    for (const b of blocks)
      if (b.startsWith('id:')) {
        if (first < 0) first = performance.now() - t0;
        n++;
      }
  }
  return { first, n, seconds: (performance.now() - t0) / 1000 };
};

// Warm-up: bundles workflows, loads RDKit in the worker.
await stream((await post(batch(1), 'warm')).id, performance.now());

const firsts: number[] = [];
for (let i = 0; i < Number(args.runs); i++) {
  const t0 = performance.now();
  const { id } = await post(batch(1), `first-${i}`);
  firsts.push((await stream(id, t0)).first);
}
firsts.sort((a, b) => a - b);
const p = (q: number) => firsts[Math.min(firsts.length - 1, Math.floor(q * firsts.length))];

const items = Number(args.items);
const t1 = performance.now();
const big = await post(batch(items), 'big');
const live = await stream(big.id, t1);
const endToEnd = (performance.now() - t1) / 1000;
const replay = await stream(big.id, performance.now());

console.log(
  JSON.stringify(
    {
      submission_to_first_event_ms: { p50: +p(0.5).toFixed(1), p90: +p(0.9).toFixed(1), runs: firsts.length },
      batch_run: {
        items,
        concurrency: Number(args.concurrency),
        seconds: +endToEnd.toFixed(2),
        items_per_second: +(items / endToEnd).toFixed(1),
        events: live.n,
      },
      sse_replay: {
        events: replay.n,
        seconds: +replay.seconds.toFixed(3),
        events_per_second: Math.round(replay.n / replay.seconds),
      },
      database: store.db.kind,
    },
    null,
    2,
  ),
);
await app.close();
await workers.shutdown();
await shapePool.close();
await connection.close();
await store.close();
await temporal.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
