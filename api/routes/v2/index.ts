import type { App } from '../../types.ts';
import type { RunsService } from '../../services/runs.ts';
import type { SelectionsService } from '../../services/selections.ts';
import type { V2SearchService } from '../../services/v2-search.ts';
import { registerV2CatalogRoutes } from './catalog.ts';
import { registerV2SearchRoutes } from './search.ts';
import { registerV2SelectionRoutes } from './selections.ts';
import { registerV2RunRoutes } from './runs.ts';
import { registerV2UsageRoute } from './usage.ts';

/** The services behind /api/v2. */
export interface V2Services {
  search: V2SearchService;
  selections: SelectionsService;
  runs: RunsService;
}

export interface V2RouteOptions {
  /** How often an SSE stream polls for new events (ms, default 250). */
  eventPollMs?: number;
}

/** Registers the /api/v2 routes over their services. */
export function registerV2Routes(app: App, services: V2Services, opts: V2RouteOptions = {}): void {
  registerV2CatalogRoutes(app, services.search);
  registerV2SearchRoutes(app, services.search);
  registerV2SelectionRoutes(app, services.selections);
  registerV2RunRoutes(app, services.runs, opts);
  registerV2UsageRoute(app);
}
