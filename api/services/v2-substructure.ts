/** Substructure search of a v2 library on its own thread (POST /api/v2/search_substructure). */
import { DomainError, invalidSmiles, validationError } from '../../platform/errors.ts';
import { getRDKit } from '../../engine/chem/index.ts';
import type { Library } from '../../engine/selection/index.ts';
import { isValidQuery } from '../../engine/substructure/index.ts';
import {
  ENGINE_VERSION,
  round3,
  synthonsOf,
  type SubstructureRequest,
  type V2SearchServiceDeps,
} from './v2-search-common.ts';

/**
 * Substructure search (SMARTS or SMILES) with matched atoms and bonds; `deprecated` for the old path.
 * `library` resolves database_id as the other v2 capabilities do.
 */
export function createV2Substructure(deps: V2SearchServiceDeps, library: (id: string) => Promise<Library>) {
  return async function substructure(
    b: SubstructureRequest,
    requestId: string,
    deprecated: boolean,
    ctx: { receivedAt?: number; signal?: AbortSignal } = {},
  ) {
    const t0 = performance.now();
    const deadline = (ctx.receivedAt ?? Date.now()) + b.timeout_seconds * 1000;
    const query =
      b.query ?? (b.query_smiles ? { format: 'smiles' as const, value: b.query_smiles } : undefined);
    if (!query)
      throw new DomainError('validation_error', '$.query: field required (or the deprecated query_smiles)', {
        issues: [{ loc: ['body', 'query'], msg: 'field required', type: 'value_error.missing' }],
      });
    const bad = () =>
      invalidSmiles(
        b.query ? ['body', 'query', 'value'] : ['body', 'query_smiles'],
        query.value,
        query.format.toUpperCase(),
      );
    // Parsing takes microseconds: done here, an invalid query never waits behind running scans.
    if (!isValidQuery(await getRDKit(), query.format, query.value)) throw bad();
    // After the query: a bad query is named even when the database is still being built.
    const lib = await library(b.database_id);
    // Spaces take their own path (v2-space-search.ts); a catalog answering a substructure search
    // here would silently answer the wrong question (user trial: CCO "superstructures" were
    // ethylene glycol and acetic acid).
    if (b.search_mode === 'superstructure')
      throw validationError(
        ['body', 'search_mode'],
        `superstructure search is offered on synthon spaces only; ${lib.info.database_id} is an enumerated catalog (use search_mode=substructure, or a space from /api/v2/catalog)`,
        'value_error.unavailable',
      );
    const key = `${lib.info.database_id}@${lib.info.release}`;
    const r = await deps.substructure.scan(
      key,
      () => Array.from({ length: lib.size }, (_, i) => lib.smiles(i)),
      { format: query.format, query: query.value, limit: b.limit, deadline, signal: ctx.signal },
    );
    if ('invalidQuery' in r) throw bad();
    const results = r.hits.map((h, i) => ({
      rank: i + 1,
      smiles: lib.smiles(h.row),
      score: 1,
      product_id: lib.productId(h.row),
      price: lib.price(h.row),
      reaction_id: null,
      metric: 'substructure',
      matched_atom_indices: h.atoms,
      matched_bond_indices: h.bonds,
      ...synthonsOf(b.include_synthons),
    }));
    const warnings = r.timedOut
      ? [
          {
            code: 'timed_out',
            message:
              `stopped at the ${b.timeout_seconds} s deadline (queueing included) having scanned ` +
              `${r.scanned} of ${lib.size} products; results are partial`,
          },
        ]
      : [];
    if (deprecated)
      warnings.push({
        code: 'deprecated',
        message: 'POST /api/v2/substructure is deprecated; use POST /api/v2/search_substructure',
      });
    const total = performance.now() - t0;
    return {
      request_id: requestId,
      database_id: lib.info.database_id,
      database_release: lib.info.release,
      engine_version: ENGINE_VERSION,
      metric: 'substructure',
      scorer: 'substructure',
      query,
      query_smiles: query.value,
      results,
      timed_out: r.timedOut,
      coverage_fraction: lib.size ? r.scanned / lib.size : 1,
      indexed_products: lib.size,
      available_products: lib.size,
      indexed_reactions: 0,
      available_reactions: 0,
      counts: {
        returned: results.length,
        native_candidates: r.scanned - r.prefiltered - r.invalid,
        exact_mismatches: r.scanned - r.prefiltered - r.invalid - results.length,
        prefiltered: r.prefiltered,
        invalid: r.invalid,
        duplicate_products: 0,
      },
      timing_ms: { total: round3(total) },
      warnings,
    };
  };
}
