// Thread entry of the filter pool: one RDKit module and one lazily compiled filter context per thread.
import { getRDKit } from '../chem/index.ts';
import { createFilterContext, evaluateFilters, type FilterContext, type FilterRequest } from './evaluate.ts';
import type { FilterVerdicts } from './filter-pool.ts';
import { serveThread } from '../threads/thread.ts';

serveThread<FilterRequest, FilterVerdicts>(() => {
  let ctx: FilterContext | undefined;
  return {
    async handle(req) {
      ctx ??= createFilterContext(await getRDKit());
      const v = evaluateFilters(ctx, req);
      return { pass: v.pass, qed: v.qed };
    },
  };
});
