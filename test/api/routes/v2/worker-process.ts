// A worker process for the kill-the-worker test: Temporal workers for the orchestration and scan
// queues with the full activities, over PostgreSQL, a local object store and the drugs fixture.
// Env: TEMPORAL_ADDRESS, DATABASE_URL, PREFIX, OBJECTS_DIR. Prints "ready" once polling.
// With HOLD_AFTER_ITEMS=n, item executions after the n-th stop midway (recorded running, the
// library lookup never answers) and the process prints "holding <n>": the test then kills a worker
// whose items are really in flight, not one that may just have finished them (a test harness
// fault: a worker cannot otherwise be made to die at a chosen point of an execution).
import { dirname } from 'node:path';
import { createActivities } from '../../../../activities/index.ts';
import { DEFAULT_TIER_LIMITS } from '../../../../platform/config.ts';
import { createLogger } from '../../../../platform/logger.ts';
import { createLocalObjectStore } from '../../../../platform/object-store/index.ts';
import { openStore } from '../../../../store/index.ts';
import { staticRegistry, type LibraryRegistry } from '../../../../engine/selection/index.ts';
import { startWorkers } from '../../../../worker/worker.ts';
import { drugsLibrary } from '../../../../testkit/drugs-library.ts';
import { createShapePool } from '../../../../engine/shape/index.ts';

const env = process.env;
const log = createLogger({ level: 'warn' });
const store = await openStore({
  databaseUrl: env.DATABASE_URL,
  pgliteDir: 'memory://',
  tierLimits: { ...DEFAULT_TIER_LIMITS },
});
const objects = createLocalObjectStore(env.OBJECTS_DIR!);
const served = staticRegistry([await drugsLibrary()]);
const holdAfter = env.HOLD_AFTER_ITEMS === undefined ? Infinity : Number(env.HOLD_AFTER_ITEMS);
let lookups = 0;
const libraries: LibraryRegistry = {
  list: () => served.list(),
  get(id) {
    if (++lookups <= holdAfter) return served.get(id);
    process.stdout.write(`holding ${lookups}\n`);
    return new Promise(() => {}); // the execution stays in flight until the process is killed
  },
};
await startWorkers({
  address: env.TEMPORAL_ADDRESS!,
  namespace: 'default',
  prefix: env.PREFIX!,
  // No legacy job runs here: the catalog directory is the (catalog-less) data directory.
  activities: createActivities({
    log,
    store,
    objects,
    catalogDir: dirname(env.OBJECTS_DIR!),
    libraries,
    // No 3D job runs here; its threads start on first use, so this pool stays idle.
    shapePool: createShapePool({ threads: 1 }),
  }),
  log,
  kinds: ['orchestration', 'scan'],
});
process.stdout.write('ready\n');
