/**
 * The synchronous analysis operations of the legacy API (docs/operations.md): similarity, matrices,
 * embeddings, clustering and nearest cluster, 2D maps on the analysis threads
 * (engine/analysis/pool.ts); array search, search by embedding and database similarity over the
 * search service. Clusterings are stored in the caller's file area
 * (`clusterings/<clustering_id>.json`) so /nearest_cluster can place new molecules later.
 */
import { DomainError, notFound } from '../../platform/errors.ts';
import type { ObjectStore } from '../../platform/object-store/index.ts';
import {
  analysisToDomain,
  scoreDistribution,
  type AnalysisPool,
  type AnalysisRequest,
  type AnalysisAnswers,
} from '../../engine/analysis/index.ts';
import type { SearchService, SimilarityRequest, SimilarityResult } from './search-service.ts';
import { userFileKey } from './jobs-files.ts';
import { csvCell, npyFloat32, outputPath, readInputSmiles } from './analysis-files.ts';
import { createAnalysisResults } from './analysis-results.ts';
import type { JobService } from './jobs.ts';
import { ulid } from './jobs-ids.ts';
import { createAnalysis3d } from './analysis-3d.ts';
import type { ShapeSearchService } from './shape-search.ts';
import type { AnalysisJobService } from './analysis-jobs.ts';
import { requestLimits } from './request-limits.ts';

/** The stated input limits, for the routes' 422s and descriptions. */
export { ANALYSIS_LIMITS, syncMapLimit } from '../../engine/analysis/index.ts';

export const CLUSTERING_ID_PATTERN = /^clu_[0-9A-HJKMNP-TV-Z]{26}$/;
const clusteringPath = (id: string) => `clusterings/${id}.json`;

export interface AnalysisServiceDeps {
  pool: AnalysisPool;
  search: SearchService;
  objects: ObjectStore;
  /** The legacy jobs, for the operations that take a `job_name` (histograms, maps of results). */
  jobs?: JobService;
  /** The 3D search (chem3d worker, 3D-ready catalogs), for the 3D embedding operations. */
  shape?: ShapeSearchService;
  /** Job mode of the heavy operations (absent: inputs above the synchronous limits are a 422). */
  analysisJobs?: AnalysisJobService;
}

/** The parameters of a 2D map (AnalysisRequest `map` without the molecules). */
export type MapParams = Omit<Extract<AnalysisRequest, { op: 'map' }>, 'op' | 'smiles'>;

type SearchBase = Omit<SimilarityRequest, 'smiles'>;
/** An array-search row: the search result, or why its SMILES gave none. */
export type ArrayRow = SimilarityResult & { error?: string };

export function createAnalysisService(deps: AnalysisServiceDeps) {
  const { pool, search, objects } = deps;
  // The client going away withdraws queued work; the pool's own deadlines bound the rest.
  const run = <R extends AnalysisRequest>(req: R) => pool.run(req, { signal: requestLimits().signal });
  const results = createAnalysisResults({ search, jobs: deps.jobs });

  return {
    run,
    results,
    /** Job mode: the heavy operations as legacy jobs (capability_unavailable where not configured). */
    jobMode(): AnalysisJobService {
      if (!deps.analysisJobs)
        throw new DomainError(
          'capability_unavailable',
          'analysis jobs are not configured on this deployment',
        );
      return deps.analysisJobs;
    },
    /** The SMILES of an uploaded file, up to the synchronous file limit. */
    readFile: (accountId: string, inputFile: string, smilesCol: string) =>
      readInputSmiles(objects, accountId, inputFile, smilesCol),
    /** Job mode where configured, else undefined (inputs above the synchronous limits stay a 422). */
    jobModeIfAny: (): AnalysisJobService | undefined => deps.analysisJobs,
    /** Embeddings, centroid and file variant for espsim_shape / espsim_electrostatic. */
    threeD: createAnalysis3d({ shape: deps.shape, objects }),

    /** 2D coordinates of a list, or of a finished job's first `maxMolecules` rows. */
    async visualize(
      accountId: string,
      req: MapParams & { smiles?: string[]; jobName?: string; maxMolecules: number },
    ) {
      const { smiles, jobName, maxMolecules, ...params } = req;
      const list = jobName ? await results.jobSmiles(accountId, jobName, maxMolecules) : smiles!;
      return run({ op: 'map', smiles: list, ...params });
    },

    /** 2D coordinates of an uploaded file: `<dest>/<stem>_<method>_coords.csv` (smiles, x, y, error). */
    async visualizeFile(
      accountId: string,
      req: MapParams & { inputFile: string; destFolder: string; smilesCol: string },
    ) {
      const { inputFile, destFolder, smilesCol, ...params } = req;
      const out = outputPath(destFolder, inputFile, `_${params.method}_coords.csv`);
      const { input, smiles } = await readInputSmiles(objects, accountId, inputFile, smilesCol);
      const r = await run({ op: 'map', smiles, field: 'input_file', ...params });
      const csv = ['smiles,canonical_smiles,x,y,error'].concat(
        smiles.map((s, i) =>
          [s, r.smiles[i], r.coordinates[i]?.[0], r.coordinates[i]?.[1], r.errors[i]].map(csvCell).join(','),
        ),
      );
      await objects.put(userFileKey(accountId, out), csv.join('\r\n') + '\r\n', 'text/csv; charset=utf-8');
      return {
        status: 'SUCCESS',
        input_file: input,
        dest_folder: destFolder,
        search_type: params.searchType,
        visualisation_method: r.visualisation_method,
        count: smiles.length,
        errors: r.errors.filter((e) => e !== null).length,
        explained_variance_ratio: r.explained_variance_ratio,
        output_files: [out],
      };
    },
    /** One search per input in input order; an unparsable SMILES gets an empty row with its error. */
    async molsearchArray(req: SearchBase & { smiles: string[] }): Promise<ArrayRow[]> {
      try {
        return await search.batch(req);
      } catch (err) {
        if (!(err instanceof DomainError) || err.code !== 'invalid_smiles') throw err;
      }
      // Some input does not parse: answer the others one by one (at most 100 inputs).
      return Promise.all(
        req.smiles.map((smiles) =>
          search.similarity({ ...req, smiles }).catch((err: unknown): ArrayRow => {
            if (!(err instanceof DomainError) || err.code !== 'invalid_smiles') throw err;
            return { canonical: '', rows: [], remarks: ['unparsable SMILES'], error: err.issues[0]?.msg };
          }),
        ),
      );
    },

    /** Neighbours of a given embedding. */
    byEmbedding: (req: SearchBase & { vector: ArrayLike<number> }) => search.byEmbedding(req),

    /** Each molecule's nearest neighbour in the databases, and the distribution of those scores. */
    async databaseSimilarity(req: { smiles: string[]; dbNames: string[]; bins: number }) {
      const rows = await this.molsearchArray({
        smiles: req.smiles,
        dbNames: req.dbNames,
        k: 1,
        descriptors: false,
        properties: false,
        filters: [],
        ordering: ['Similarity'],
      });
      const nearest = rows.map((r, i) => {
        const hit = r.rows[0];
        if (r.error !== undefined) return { smiles: req.smiles[i], similarity: null, error: r.error };
        return hit
          ? {
              smiles: r.canonical,
              similarity: hit.similarity,
              id: hit.id,
              database: hit.database,
              error: null,
            }
          : { smiles: r.canonical, similarity: null, error: 'no molecule in the database' };
      });
      const scores = nearest.map((n) => (n.similarity === null ? NaN : n.similarity));
      let distribution;
      try {
        distribution = scoreDistribution(scores, req.bins, 'search_input');
      } catch (err) {
        throw analysisToDomain(err);
      }
      return { nearest, distribution };
    },

    /**
     * Embeddings of an uploaded file: `<dest>/<stem>_<search_type>_embeddings.npy` (float32, one
     * row per input row; zeros for a row that does not parse) and `..._embeddings_index.csv`.
     */
    async embeddingsFile(
      accountId: string,
      req: { inputFile: string; destFolder: string; smilesCol: string; searchType: string; kind: string },
    ) {
      const base = outputPath(req.destFolder, req.inputFile, `_${req.searchType}_embeddings`);
      const { input, smiles } = await readInputSmiles(objects, accountId, req.inputFile, req.smilesCol);
      const r = await run({
        op: 'embeddings',
        smiles,
        searchType: req.searchType,
        kind: req.kind,
        format: 'dense',
      });
      const values = new Float32Array(smiles.length * r.dimensions);
      r.embeddings.forEach((v, i) => v && values.set(v as number[], i * r.dimensions));
      const npy = `${base}.npy`;
      const index = `${base}_index.csv`;
      const csv = ['row,smiles,canonical_smiles,error'].concat(
        smiles.map((s, i) => [i, s, r.canonical_smiles[i], r.errors[i]].map(csvCell).join(',')),
      );
      await objects.put(userFileKey(accountId, npy), npyFloat32(smiles.length, r.dimensions, values));
      await objects.put(userFileKey(accountId, index), csv.join('\r\n') + '\r\n', 'text/csv; charset=utf-8');
      return {
        status: 'SUCCESS',
        input_file: input,
        dest_folder: req.destFolder,
        search_type: req.searchType,
        embedding_type: req.kind,
        dimensions: r.dimensions,
        count: smiles.length,
        errors: r.errors.filter((e) => e !== null).length,
        output_files: [npy, index],
      };
    },

    /** Clusters a list and stores the clustering under a new id in the caller's area. */
    async cluster(accountId: string, req: Extract<AnalysisRequest, { op: 'cluster' }>) {
      const { model, ...answer } = await run(req);
      const clustering_id = `clu_${ulid()}`;
      await objects.put(userFileKey(accountId, clusteringPath(clustering_id)), model, 'application/json');
      return { clustering_id, ...answer };
    },

    /** Places molecules in one of the caller's stored clusterings (404 for unknown or another user's). */
    async nearestCluster(
      accountId: string,
      clusteringId: string,
      smiles: string[],
    ): Promise<AnalysisAnswers['nearest_cluster']> {
      if (!CLUSTERING_ID_PATTERN.test(clusteringId)) throw notFound(`clustering ${clusteringId}`);
      const key = userFileKey(accountId, clusteringPath(clusteringId));
      if ((await objects.head(key)) === undefined) throw notFound(`clustering ${clusteringId}`);
      const model = Buffer.from(await objects.getBytes(key)).toString('utf8');
      return run({ op: 'nearest_cluster', model, smiles });
    },
  };
}

export type AnalysisService = ReturnType<typeof createAnalysisService>;
