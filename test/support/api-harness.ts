import type { FastifyInstance } from 'fastify';
import { createLogger } from '../../platform/logger.ts';
import { DEFAULT_TIER_LIMITS } from '../../platform/config.ts';
import { openStore, type Store } from '../../store/index.ts';
import { createSearchPool, type SearchPool } from '../../engine/search/index.ts';
import type { Catalog } from '../../engine/catalog/index.ts';
import { buildApp } from '../../api/app.ts';
import { createCatalogSearchService } from '../../api/services/catalog-search.ts';

export interface ApiHarness {
  app: FastifyInstance;
  store: Store;
  pool: SearchPool;
  key: string;
  close(): Promise<void>;
}

/** The real API over real catalogs, a real engine pool and an in-memory PGlite store. */
export async function startApiHarness(
  catalogs: Catalog[],
  opts: { tierLimits?: Record<string, number>; tier?: string } = {},
): Promise<ApiHarness> {
  const log = createLogger({ level: 'warn', pretty: false });
  const store = await openStore(
    { pgliteDir: 'memory://', tierLimits: { ...DEFAULT_TIER_LIMITS, ...opts.tierLimits } },
    log,
  );
  const pool = createSearchPool({ threads: 2, log });
  for (const c of catalogs) await pool.loadCatalog(c);
  const search = await createCatalogSearchService({ catalogs, pool, log });
  const app = await buildApp({
    log,
    accounts: store.accounts,
    search,
    health: [{ name: 'catalogs', check: async () => {} }],
  });
  const { key } = await store.accounts.createApiKey({ user: 'tester', tier: opts.tier ?? 'premium' });
  return {
    app,
    store,
    pool,
    key,
    async close() {
      await app.close();
      await pool.close();
      await store.close();
    },
  };
}
