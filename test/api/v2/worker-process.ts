// A worker process for the kill-the-worker test: Temporal workers for the orchestration and scan
// queues with the full activities, over PostgreSQL, a local object store and the drugs fixture.
// Env: TEMPORAL_ADDRESS, DATABASE_URL, PREFIX, OBJECTS_DIR. Prints "ready" once polling.
import { dirname } from 'node:path';
import { createActivities } from '../../../activities/index.ts';
import { DEFAULT_TIER_LIMITS } from '../../../platform/config.ts';
import { createLogger } from '../../../platform/logger.ts';
import { createLocalObjectStore } from '../../../platform/object-store/index.ts';
import { openStore } from '../../../store/index.ts';
import { staticRegistry } from '../../../engine/selection/index.ts';
import { startWorkers } from '../../../worker/worker.ts';
import { drugsLibrary } from '../../../testkit/drugs-library.ts';

const env = process.env;
const log = createLogger({ level: 'warn' });
const store = await openStore({
  databaseUrl: env.DATABASE_URL,
  pgliteDir: 'memory://',
  tierLimits: { ...DEFAULT_TIER_LIMITS },
});
const objects = createLocalObjectStore(env.OBJECTS_DIR!);
const libraries = staticRegistry([await drugsLibrary()]);
await startWorkers({
  address: env.TEMPORAL_ADDRESS!,
  namespace: 'default',
  prefix: env.PREFIX!,
  // No legacy job runs here: the catalog directory is the (catalog-less) data directory.
  activities: createActivities({ log, store, objects, catalogDir: dirname(env.OBJECTS_DIR!), libraries }),
  log,
  kinds: ['orchestration', 'scan'],
});
process.stdout.write('ready\n');
