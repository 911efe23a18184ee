import { openCatalog, rowRecord, type Catalog, type ShardData } from '../../engine/catalog/index.ts';
import { loadShard3d, molecule3d, type Shard3d } from '../../engine/catalog/three-d-reader.ts';
import { DESCRIPTOR_NAMES } from '../../engine/chem/index.ts';
import type { SearchPool } from '../../engine/search/index.ts';
import { DESCRIPTOR_LENGTH, describeConformers, type ShapePool } from '../../engine/shape/index.ts';
import type { Molecule3d } from '../../engine/catalog/three-d-schema.ts';
import { DomainError, validationError } from '../../platform/errors.ts';
import type { QueryEmbedder } from './query-embedder.ts';
import type { NeighborRow, SimilarityResult } from './search-service.ts';
import type { ThreeDStatusService } from './three-d-status.ts';

export const THREE_D_TYPES = ['espsim_shape', 'espsim_electrostatic'] as const;
export type ThreeDType = (typeof THREE_D_TYPES)[number];

/** Shortlist sizes of the first stage by `search_quality`; `very_accurate` scores every row. */
export function shortlistSize(quality: string | undefined, k: number): number {
  if (quality === 'very_accurate' || quality === 'very accurate') return Infinity;
  const n = quality === 'accurate' ? 1000 : /^\d+$/.test(quality ?? '') ? Number(quality) : 100;
  return Math.max(n, k);
}

export interface ShapeSearchRequest {
  smiles: string;
  dbNames: string[];
  k: number;
  types: ThreeDType[];
  quality?: string;
  descriptors: boolean;
  /** Where the query came from, for a 422 when it cannot be embedded (default query.search_input). */
  loc?: (string | number)[];
}

/** One molecule in 3D with its first-stage descriptors (60 floats per conformer), or why not. */
export type Embedded3d =
  { ok: true; molecule: Molecule3d; descriptors: Float32Array } | { ok: false; reason: string };

export interface ShapeSearchService {
  /** The 3D-ready database a 3D request without `db_names` searches (largest ready), or undefined. */
  defaultDatabase(): Promise<string | undefined>;
  /** 4xx naming `db_names` unless every database is 3D-ready (with its stage's progress). */
  checkReady(dbNames: string[]): Promise<void>;
  search(req: ShapeSearchRequest): Promise<SimilarityResult>;
  /**
   * Each SMILES embedded by the chem3d worker (the catalog's recipe) with its first-stage
   * descriptors; an unembeddable one gets its reason. 503 (`unavailable`) when no worker answers.
   */
  embedMany(smiles: string[], loc: (string | number)[]): Promise<Embedded3d[]>;
  /**
   * The first stage alone for a given descriptor vector (60 floats per conformer, one or more
   * conformers): the k rows of 3D-ready databases with the best first-stage similarity.
   */
  searchDescriptors(req: {
    vector: Float32Array;
    dbNames: string[];
    k: number;
    descriptors: boolean;
  }): Promise<SimilarityResult>;
}

/**
 * espsim_shape / espsim_electrostatic over 3D-ready catalogs: the query is embedded by the chem3d
 * worker, every row's conformers are screened by USRCAT-style descriptors (first stage, stored in
 * the sidecars), and the shortlist is aligned and scored exactly on the shape pool's threads
 * (engine/shape). Rows carry `Shapesim` and `Espsim` (both computed at the best shape alignment).
 */
export function createShapeSearch(deps: {
  catalogs: Catalog[];
  pool: SearchPool;
  shapePool: ShapePool;
  embedder: QueryEmbedder;
  threeD: ThreeDStatusService;
}): ShapeSearchService {
  const byId = new Map(deps.catalogs.map((c) => [c.manifest.id, c]));
  const loaded = new Map<string, Promise<Shard3d[]>>();
  const shards3d = (id: string): Promise<Shard3d[]> => {
    let p = loaded.get(id);
    if (!p) {
      p = (async () => {
        const c = await openCatalog(byId.get(id)!.dir);
        return Promise.all(c.manifest.shards.map((_, i) => loadShard3d(c, i)));
      })();
      p.catch(() => loaded.delete(id));
      loaded.set(id, p);
    }
    return p;
  };

  type Cand = { db: string; shard: number; row: number; score: number };
  /**
   * The first stage: every shard scanned on the shape pool's threads, never this event loop;
   * candidates gathered in shard order so ties rank as in a serial scan; the `limit` best.
   */
  async function firstStage(qd: Float32Array, dbNames: string[], limit: number) {
    let rows = 0;
    const scans: Promise<Cand[]>[] = [];
    for (const db of dbNames) {
      for (const s of await shards3d(db)) {
        rows += s.rows;
        const scan = deps.shapePool.scanShortlist(qd, s.table, Math.min(limit, s.rows));
        scans.push(
          scan.then((sl) =>
            Array.from(sl.rows, (row, i) => ({ db, shard: s.index, row, score: sl.scores[i] })).filter(
              (c) => s.confCounts[c.row] > 0,
            ),
          ),
        );
      }
    }
    const cands = (await Promise.all(scans))
      .flat()
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
    return { cands, rows };
  }

  function neighborRow(c: Cand, similarity: number, descriptors: boolean, extra: object): NeighborRow {
    const shard = deps.pool.shard(c.db, c.shard) as ShardData;
    const rec = rowRecord(shard, c.row, ['product_id', 'smiles', ...(descriptors ? DESCRIPTOR_NAMES : [])]);
    const { product_id, smiles, ...rest } = rec;
    return {
      smiles: String(smiles),
      id: String(product_id),
      database: c.db,
      db_id: String(product_id),
      similarity,
      ...extra,
      ...rest,
    } as NeighborRow;
  }

  return {
    async defaultDatabase() {
      const ready = [];
      for (const c of deps.catalogs)
        if ((await deps.threeD.status(c.manifest.id))?.status === 'ready') ready.push(c);
      return ready.sort((a, b) => b.manifest.counts.molecules - a.manifest.counts.molecules)[0]?.manifest.id;
    },

    async checkReady(dbNames) {
      for (const name of dbNames) {
        const s = await deps.threeD.status(name);
        if (!s || s.status === 'ready') continue; // unknown names: the usual check names them
        const p = s.progress;
        // Estimated from this run's own rate, once a part has completed.
        const eta =
          p && p.moleculesDone > 0 && p.moleculesDone < p.moleculesTotal
            ? `, about ${Math.ceil((((Date.now() - p.startedAt) / p.moleculesDone) * (p.moleculesTotal - p.moleculesDone)) / 60_000)} min to go`
            : '';
        const when =
          s.status === 'building' && p
            ? `its 3D stage is running: ${p.moleculesDone} of ${p.moleculesTotal} molecules embedded${eta}; retry when it completes (GET /available_databases_full shows the progress)`
            : 'its 3D stage has not been run (molsearch start runs it for bundled catalogs; see docs/chem3d.md)';
        throw validationError(
          ['query', 'db_names'],
          `database ${name} is not 3D-ready yet: ${when}`,
          'value_error.not_ready',
        );
      }
    },

    async search(req) {
      const t0 = performance.now();
      const query = await deps.embedder.embed(req.smiles, req.loc);
      const t1 = performance.now();
      const qd = describeConformers(query);
      const limit = shortlistSize(req.quality, req.k);
      const { cands, rows } = await firstStage(qd, req.dbNames, limit);
      const t2 = performance.now();
      const sets = await Promise.all(
        cands.map(async (c) => molecule3d((await shards3d(c.db))[c.shard], c.row)!),
      );
      const metric = req.types[0] === 'espsim_electrostatic' ? 'esp' : 'shape';
      const hits = await deps.shapePool.scoreShortlist(query, sets, { metric, k: req.k });
      const t3 = performance.now();
      const out = hits.map((h) =>
        neighborRow(cands[h.index], metric === 'esp' ? h.esp : h.shape, req.descriptors, {
          Shapesim: h.shape,
          Espsim: h.esp,
        }),
      );
      const ms = (a: number, b: number) => Math.round(b - a);
      return {
        canonical: req.smiles,
        rows: out,
        remarks: [
          `3D ${metric} search: query embedded with ${query.confCount} conformer(s) in ${ms(t0, t1)} ms; ` +
            `first stage screened ${rows} rows in ${ms(t1, t2)} ms, ${cands.length} aligned and scored exactly in ${ms(t2, t3)} ms.`,
        ],
      };
    },

    async embedMany(smiles, loc) {
      // Two at a time: the query queue's worker embeds one molecule per core.
      const out: Embedded3d[] = new Array(smiles.length);
      let next = 0;
      const one = async (): Promise<void> => {
        for (let i = next++; i < smiles.length; i = next++) {
          try {
            const molecule = await deps.embedder.embed(smiles[i], [...loc, i]);
            out[i] = { ok: true, molecule, descriptors: describeConformers(molecule) };
          } catch (err) {
            if (!(err instanceof DomainError) || err.code !== 'validation_error') throw err;
            out[i] = { ok: false, reason: err.issues[0]?.msg ?? err.message };
          }
        }
      };
      await Promise.all([one(), one()]);
      return out;
    },

    async searchDescriptors(req) {
      const t0 = performance.now();
      const { cands, rows } = await firstStage(req.vector, req.dbNames, req.k);
      const out = cands.map((c) => neighborRow(c, c.score, req.descriptors, {}));
      return {
        canonical: '',
        rows: out,
        remarks: [
          `3D first stage by a given embedding (${req.vector.length / DESCRIPTOR_LENGTH} conformer(s)): ` +
            `${rows} rows screened in ${Math.round(performance.now() - t0)} ms; similarity is the first-stage score.`,
        ],
      };
    },
  };
}
