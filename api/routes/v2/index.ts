import type { FastifyInstance } from 'fastify';
import type { V2Deps } from './common.ts';
import { registerV2CatalogRoutes } from './catalog.ts';
import { registerV2SearchRoutes } from './search.ts';
import { registerV2SelectionRoutes } from './selections.ts';
import { registerV2RunRoutes } from './runs.ts';

export type { V2Deps } from './common.ts';

/**
 * The /api/v2 route group, for AppDeps.plugins. Also schedules the retention purge of expired runs
 * (every purgeIntervalMs, default hourly), stopped when the app closes.
 */
export function v2Routes(deps: V2Deps): (app: FastifyInstance) => void {
  return (app) => {
    registerV2CatalogRoutes(app, deps);
    registerV2SearchRoutes(app, deps);
    registerV2SelectionRoutes(app, deps);
    registerV2RunRoutes(app, deps);
    const every = deps.purgeIntervalMs ?? 3_600_000;
    if (every > 0) {
      const timer = setInterval(() => {
        deps.runService.purgeExpired().then(
          (n) => n && app.log.info({ runs: n }, 'purged expired runs'),
          (err) => app.log.warn({ err }, 'run purge failed'),
        );
      }, every);
      timer.unref();
      app.addHook('onClose', async () => clearInterval(timer));
    }
  };
}
