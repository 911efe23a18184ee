/**
 * Synthon spaces as databases of the search service: listed next to the catalogs (kind
 * `synthon`, product count as molecules), searched by Morgan similarity on the space pool's
 * threads when a request names them (exact top-k, engine/synthons/similarity.ts), merged with any
 * catalog hits by similarity. Product ids are `reaction;synthon;...` and rows carry `reaction_id`
 * and the synthons.
 */
import { invalidSmiles, validationError } from '../../platform/errors.ts';
import { getRDKit, parseMolecule, type ParsedMolecule } from '../../engine/chem/index.ts';
import type { SpacePool } from '../../engine/synthons/space-pool.ts';
import type { SpaceManifest } from '../../engine/synthons/format.ts';
import type { BackgroundBuild } from '../../engine/synthons/bundled.ts';
import type { TopKResult } from '../../engine/synthons/similarity-topk.ts';
import type {
  DatabaseInfo,
  NeighborRow,
  SearchService,
  SimilarityRequest,
  SimilarityResult,
} from './search-service.ts';
import { pendingSpaces, spaceNotReady } from './pending-databases.ts';

export { spaceNotReady } from './pending-databases.ts';

export interface SpaceEntry {
  manifest: SpaceManifest;
  vendor: string;
  website: string;
  license?: string;
}

/** Per-request budget of a space search; past it the hits found so far are returned. */
const SPACE_TIMEOUT_MS = 20_000;

function spaceInfo(s: SpaceEntry): DatabaseInfo {
  const m = s.manifest;
  return {
    id: m.id,
    name: m.name,
    vendor: s.vendor,
    website: s.website,
    contact: s.website,
    release: m.createdAt.slice(0, 10),
    kind: 'synthon',
    molecules: m.counts.products,
    // synthongpt on a space is the synthon search with the morgan scorer: the same exact search.
    searchTypes: ['morgan', 'synthongpt'],
    hasPredictions: false,
    license: s.license,
    source: m.source,
  };
}

/**
 * The k best distinct products of a space (a legacy row and a v2 hit are products; one product can
 * be reached by several routes): engine/synthons/similarity-distinct.ts, on the space's thread.
 */
export function uniqueSpaceHits(
  pool: Pick<SpacePool, 'similarity'>,
  space: string,
  fp: Uint8Array,
  k: number,
  timeoutMs: number,
): Promise<TopKResult> {
  return pool.similarity(space, fp, k, timeoutMs, { distinct: true });
}

/** A 422 naming db_names: what a synthon space cannot serve (its products are never enumerated). */
function spaceUnsupported(what: string, spaces: string[]) {
  return validationError(
    ['query', 'db_names'],
    `${what} is defined for enumerated catalogs; ${spaces.join(', ')} ${spaces.length > 1 ? 'are synthon spaces' : 'is a synthon space'}`,
    'value_error.unavailable',
  );
}

/**
 * The search service with spaces added; `base` serves the catalogs. `spaces` is read on every call:
 * a space built in the background is pushed into it when ready. `defaultSpace` is the default
 * database once it is there (until then the catalogs' default stays).
 */
export async function withSynthonSpaces(
  base: SearchService,
  spaces: SpaceEntry[],
  pool: SpacePool,
  opts: {
    defaultSpace?: string;
    /** Time budget of one space search (default 20 s). */
    spaceTimeoutMs?: number;
    /** Spaces being built in the background (read on every call). */
    builds?: () => readonly BackgroundBuild[];
  } = {},
): Promise<SearchService> {
  const rd = await getRDKit();
  const ids = { has: (id: string) => spaces.some((s) => s.manifest.id === id) };

  async function spaceRows(
    space: string,
    fp: Uint8Array,
    k: number,
  ): Promise<{ rows: NeighborRow[]; note?: string }> {
    const res = await uniqueSpaceHits(pool, space, fp, k, opts.spaceTimeoutMs ?? SPACE_TIMEOUT_MS);
    const rows = res.hits.map(
      (h) =>
        ({
          smiles: h.smiles,
          id: h.productId,
          database: space,
          db_id: h.productId,
          similarity: h.similarity,
          'Morgan Tanimoto': h.similarity,
          reaction_id: h.reactionId,
          synthons: h.synthons.map((s) => ({ slot: s.slot, synthon_id: s.synthonId, smiles: s.smiles })),
        }) as NeighborRow,
    );
    const note = res.timedOut
      ? `Search of ${space} stopped at its time budget; the ${rows.length} hits are the best of ` +
        `${res.scoredProducts} products scored exactly, not proven the best in the space` +
        (res.provenAbove !== undefined
          ? ` (every product with Morgan Tanimoto >= ${res.provenAbove} was scored).`
          : '.')
      : rows.length < k
        ? `${space} holds ${rows.length} distinct valid products${res.threshold > 0 ? ` with Morgan Tanimoto >= ${res.threshold}` : ''}.`
        : undefined;
    return { rows, note };
  }

  function parsed(smiles: string, loc: (string | number)[]): ParsedMolecule {
    const q = parseMolecule(rd, smiles);
    if ('error' in q) throw invalidSmiles(loc, smiles, `SMILES (${q.error})`);
    return q;
  }

  /** A similarity request naming at least one space, its query already parsed. */
  async function searchParsed(req: SimilarityRequest, q: ParsedMolecule): Promise<SimilarityResult> {
    const mine = req.dbNames.filter((d) => ids.has(d));
    const others = req.dbNames.filter((d) => !ids.has(d));
    const parts: SimilarityResult[] = others.length
      ? [await base.similarity({ ...req, dbNames: others })]
      : [];
    const remarks = parts.flatMap((p) => p.remarks);
    const rows = parts.flatMap((p) => p.rows);
    for (const s of mine) {
      const r = await spaceRows(s, q.fp, req.k);
      rows.push(...r.rows);
      if (r.note) remarks.push(r.note);
    }
    if (req.filters.length) remarks.push('Legacy filters are not applied to synthon-space products yet.');
    if (req.descriptors || req.properties)
      remarks.push('Descriptors and predicted properties are not computed for synthon-space products yet.');
    rows.sort(
      (a, b) =>
        b.similarity - a.similarity || a.database.localeCompare(b.database) || a.id.localeCompare(b.id),
    );
    return { canonical: q.canonicalSmiles, rows: rows.slice(0, req.k), remarks };
  }

  const service: SearchService = {
    ...base,
    // Fresh per call: a catalog's 3D stage may complete while the service runs (its search types).
    databases: () => [...base.databases(), ...spaces.map(spaceInfo)],
    notReady: (id) => (ids.has(id) ? undefined : spaceNotReady(opts.builds?.() ?? [], id)),
    pending: () => pendingSpaces(opts.builds?.() ?? [], ids.has),
    // The flagship space is the default (the interface's default database is a synthon space).
    defaultDatabase: () =>
      opts.defaultSpace && ids.has(opts.defaultSpace) ? opts.defaultSpace : base.defaultDatabase(),
    ready: () => base.ready() || spaces.length > 0,
    async similarity(req) {
      if (!req.dbNames.some((d) => ids.has(d))) return base.similarity(req);
      return searchParsed(req, parsed(req.smiles, ['query', 'search_input']));
    },
    // Batch search (/batch_search batch mode, /search_file, /molsearch_array) over spaces: the
    // space search per input, in input order; catalogs alone keep their batched scan.
    async batch(req) {
      if (!req.dbNames.some((d) => ids.has(d))) return base.batch(req);
      // Every input is parsed before any is searched (a user trial waited 2.7 s for the first
      // input's search before a bad second input was refused), and the error says which one.
      const qs = req.smiles.map((smiles, i) => parsed(smiles, ['query', 'search_input', i]));
      const out: SimilarityResult[] = [];
      for (const [i, q] of qs.entries()) out.push(await searchParsed({ ...req, smiles: req.smiles[i] }, q));
      return out;
    },
    async centroid(req) {
      const mine = req.dbNames.filter((d) => ids.has(d));
      if (mine.length) throw spaceUnsupported('centroid search (use search_mode=batch)', mine);
      return base.centroid(req);
    },
    async byEmbedding(req) {
      const mine = req.dbNames.filter((d) => ids.has(d));
      if (mine.length) throw spaceUnsupported('search by embedding', mine);
      return base.byEmbedding(req);
    },
  };
  return service;
}
