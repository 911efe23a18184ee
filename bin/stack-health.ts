/** The /health checks of a stack (bin/stack.ts). */
import type { Connection } from '@temporalio/client';
import type { HealthCheck } from '../api/app.ts';
import type { SearchService } from '../api/services/search-service.ts';
import type { Catalog } from '../engine/catalog/index.ts';
import type { ObjectStore } from '../platform/object-store/index.ts';
import type { Store } from '../store/index.ts';
import type { openFleetSearch } from './published-catalogs.ts';
import type { openSynthonSpaces } from './stack-spaces.ts';

type Spaces = Awaited<ReturnType<typeof openSynthonSpaces>>;

export function stackHealthChecks(deps: {
  connection: Connection;
  store: Store;
  objects: ObjectStore;
  catalogs: Catalog[];
  fleet: Awaited<ReturnType<typeof openFleetSearch>> | undefined;
  search: SearchService;
  spaceEntries: Spaces['spaceEntries'];
  spaceBuilds: Spaces['spaceBuilds'];
}): HealthCheck[] {
  const { connection, store, objects, catalogs, fleet, search, spaceEntries, spaceBuilds } = deps;
  return [
    { name: 'temporal', check: async () => void (await connection.workflowService.getSystemInfo({})) },
    { name: 'database', check: () => store.ping() },
    { name: 'object_store', check: async () => void (await objects.list('health-probe/')) },
    {
      name: 'catalogs',
      check: async () => {
        if ((!catalogs.length && !fleet) || !search.ready()) throw new Error('no catalog loaded');
      },
    },
    {
      // Informational (never failing): spaces still building are served once built.
      name: 'synthon_spaces',
      check: async () => ({
        ready: spaceEntries.map((e) => e.manifest.id),
        // `info` (what the listings show of the space) is left to them.
        background_builds: spaceBuilds.map(({ info: _info, ...b }) => b),
      }),
    },
    ...(fleet
      ? [
          {
            name: 'fleet',
            // Partly uncovered still answers (with a coverage warning); no live worker does not.
            check: async () => {
              const p = await fleet.placement();
              if (!p.members.length) throw new Error('no live scan worker');
              return {
                members: p.members.map((m) => m.workerId),
                shards_held: p.members.reduce((n, m) => n + m.held.length, 0),
                uncovered: p.uncovered,
              };
            },
          },
        ]
      : []),
  ];
}
