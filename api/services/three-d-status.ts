import type { WorkflowClient } from '@temporalio/client';
import { openCatalog, type Catalog } from '../../engine/catalog/index.ts';
import { servedSearchTypes } from '../../engine/catalog/three-d-schema.ts';
import {
  CATALOG_3D_PROGRESS_QUERY,
  chem3dWorkflowIds,
  type Catalog3dProgress,
} from '../../workflows/contracts.ts';

/** Search types this service answers (of those a catalog's manifest says its data serves). */
export const SERVED_SEARCH_TYPES: readonly string[] = ['morgan', 'espsim_shape', 'espsim_electrostatic'];

/** A database's 3D state, as /available_databases_full and /api/v2/catalog report it. */
export interface ThreeDStatus {
  /** `ready`: sidecars in the manifest; `building`: its 3D stage runs; `not_built`: neither. */
  status: 'ready' | 'building' | 'not_built';
  /** Search types the catalog's data serves (manifest `search_types`). */
  data_search_types: string[];
  /** Of those, the ones this service answers now. */
  search_types: string[];
  counts: { molecules: number; embedded: number; rejected: number; conformers: number } | null;
  progress: ThreeDProgress | null;
}

/**
 * A running 3D stage's progress, as the listings and the not-ready 422 give it (one query of the
 * workflow, one computation, so both say the same). snake_case as the bodies; the camelCase keys
 * of the workflow's query are kept beside them for clients that read them (deprecated).
 */
export interface ThreeDProgress {
  state: Catalog3dProgress['state'];
  /** Molecules through the chem3d worker (embedded or rejected) in this and earlier runs. */
  molecules_done: number;
  molecules_total: number;
  percent: number;
  /** Of molecules_done: embedded + rejected = molecules_done. */
  embedded: number;
  rejected: number;
  shards_done: number;
  shards_total: number;
  started_at: string;
  /** From this run's rate once a part has completed; null before, and once all are done. */
  eta_seconds: number | null;
  moleculesDone: number;
  moleculesTotal: number;
  shardsDone: number;
  shardsTotal: number;
  startedAt: number;
}

export function threeDProgress(p: Catalog3dProgress, now = Date.now()): ThreeDProgress {
  const left = p.moleculesTotal - p.moleculesDone;
  return {
    state: p.state,
    molecules_done: p.moleculesDone,
    molecules_total: p.moleculesTotal,
    percent: p.moleculesTotal > 0 ? Math.floor((100 * p.moleculesDone) / p.moleculesTotal) : 0,
    embedded: p.embedded,
    rejected: p.rejected,
    shards_done: p.shardsDone,
    shards_total: p.shardsTotal,
    started_at: new Date(p.startedAt).toISOString(),
    eta_seconds:
      p.moleculesDone > 0 && left > 0
        ? Math.ceil((((now - p.startedAt) / p.moleculesDone) * left) / 1000)
        : null,
    moleculesDone: p.moleculesDone,
    moleculesTotal: p.moleculesTotal,
    shardsDone: p.shardsDone,
    shardsTotal: p.shardsTotal,
    startedAt: p.startedAt,
  };
}

export interface ThreeDStatusService {
  status(id: string): Promise<ThreeDStatus | null>;
}

/**
 * Reads the manifest again (a 3D stage completes while the service runs) and, without 3D data,
 * asks the catalog's 3D workflow for its progress. Answers within ~1 s even if Temporal does not.
 */
export function createThreeDStatus(deps: {
  catalogs: Catalog[];
  workflows?: WorkflowClient;
}): ThreeDStatusService {
  const byId = new Map(deps.catalogs.map((c) => [c.manifest.id, c]));
  return {
    async status(id) {
      const c = byId.get(id);
      if (!c) return null;
      const m = await openCatalog(c.dir).then(
        (x) => x.manifest,
        () => c.manifest,
      );
      const data = servedSearchTypes(m);
      const base = {
        data_search_types: data,
        search_types: data.filter((t) => SERVED_SEARCH_TYPES.includes(t)),
        counts: m.three_d?.counts ?? null,
        progress: null,
      };
      if (m.three_d) {
        // The stage completed after start: the shared catalog object learns it (search types).
        if (!c.manifest.three_d) c.manifest = m;
        return { status: 'ready', ...base };
      }
      if (!deps.workflows) return { status: 'not_built', ...base };
      const handle = deps.workflows.getHandle(chem3dWorkflowIds.catalog3d(id));
      const p = await Promise.race([
        handle
          .describe()
          .then(async (d) =>
            d.status.name === 'RUNNING'
              ? await handle.query<Catalog3dProgress>(CATALOG_3D_PROGRESS_QUERY)
              : null,
          ),
        new Promise<null>((r) => setTimeout(() => r(null), 1000).unref()),
      ]).catch(() => null);
      if (!p) return { status: 'not_built', ...base };
      return { status: 'building', ...base, progress: threeDProgress(p) };
    },
  };
}
