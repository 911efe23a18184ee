/**
 * Exact-product reranking of one enumerated catalog (POST /api/v2/search_cheese): a proposal stage
 * picks `limit × shortlist_multiplier` rows cheaply (the 3D first stage for `shape` and `esp`,
 * the Morgan k-NN for `morgan`), then every proposed row is scored exactly (3D alignment, or the
 * double Tanimoto) and the best `limit` are returned. Synthon spaces are reranked elsewhere
 * (v2-space-search wraps the v2 service's `cheese`); this is the catalog path only.
 */
import type { ParsedMolecule } from '../../engine/chem/index.ts';
import type { QueryEmbedder } from './query-embedder.ts';
import type { ShapeStages } from './shape-stages.ts';

export const CHEESE_SCORERS = ['shape', 'esp', 'morgan'] as const;
export type CheeseScorer = (typeof CHEESE_SCORERS)[number];

/** The metric id of each scorer's score (the selection metric ids of the same scores). */
export const CHEESE_METRICS: Record<CheeseScorer, string> = {
  shape: 'cheese.shape',
  esp: 'cheese.electrostatic',
  morgan: 'rdkit.ecfp4_tanimoto',
};

export interface RerankRequest {
  smiles: string;
  dbName: string;
  scorer: CheeseScorer;
  limit: number;
  shortlistMultiplier: number;
}

export interface RerankHit {
  /** Row across the catalog's shards (the v2 library's row number). */
  row: number;
  score: number;
  /** The proposal stage's score (descriptor similarity, or the f32 Morgan Tanimoto). */
  proposalScore: number;
  shape: number | null;
  esp: number | null;
  morgan: number;
}

export interface RerankOutcome {
  canonical: string;
  hits: RerankHit[];
  proposed: number;
  assembled: number;
  effectiveShortlist: number;
  modelVersion: string;
  timing: { query: number; proposal: number; assembly_and_scoring: number; total: number };
}

export type ShapeRerank = (req: RerankRequest) => Promise<RerankOutcome>;

const round3 = (ms: number) => Math.round(ms * 1000) / 1000;

export function createShapeRerank(deps: {
  stages: ShapeStages;
  embedder: QueryEmbedder;
  fingerprint(smiles: string, loc: (string | number)[]): Promise<ParsedMolecule>;
  checkReady(dbNames: string[], loc?: (string | number)[]): Promise<void>;
}): ShapeRerank {
  return async (req) => {
    const t0 = performance.now();
    const shortlist = req.limit * req.shortlistMultiplier;
    const q = await deps.fingerprint(req.smiles, ['body', 'query_smiles']);
    if (req.scorer === 'morgan') {
      const t1 = performance.now();
      const proposed = await deps.stages.morganStage(q.fp, [req.dbName], shortlist);
      const t2 = performance.now();
      const hits = proposed
        .map((c) => ({ c, morgan: deps.stages.morgan(q.fp, c) }))
        .sort((a, b) => b.morgan - a.morgan || a.c.row - b.c.row)
        .slice(0, req.limit)
        .map(({ c, morgan }) => ({
          row: deps.stages.globalRow(c),
          score: morgan,
          proposalScore: c.first,
          shape: null,
          esp: null,
          morgan,
        }));
      const t3 = performance.now();
      return outcome(q.canonicalSmiles, hits, proposed.length, 'rdkit.morgan2-2048/1', [t0, t1, t2, t3]);
    }
    await deps.checkReady([req.dbName], ['body', 'database_id']);
    const query = await deps.embedder.embed(req.smiles, ['body', 'query_smiles']);
    const t1 = performance.now();
    const { candidates } = await deps.stages.firstStage(
      [query],
      [req.dbName],
      shortlist,
      req.scorer === 'esp' ? 'esp' : 'shape',
    );
    const t2 = performance.now();
    const scored = await deps.stages.exact([query], [q.fp], candidates);
    const key = req.scorer === 'esp' ? 'esp' : 'shape';
    const hits = scored
      .map((c, i) => ({ c, i }))
      .sort((a, b) => (b.c[key] ?? -Infinity) - (a.c[key] ?? -Infinity) || a.i - b.i)
      .slice(0, req.limit)
      .map(({ c }) => ({
        row: deps.stages.globalRow(c),
        score: c[key]!,
        proposalScore: c.first,
        shape: c.shape,
        esp: c.esp,
        morgan: c.morgan,
      }));
    const t3 = performance.now();
    const e = (await deps.stages.shards3d(req.dbName))[0]?.embedding;
    const model = `usrcat-60/1 over ${e ? `${e.method} ${e.confs} conformers, RDKit ${e.rdkit_version}` : 'ETKDGv3'}`;
    return outcome(q.canonicalSmiles, hits, candidates.length, model, [t0, t1, t2, t3]);
  };
}

function outcome(
  canonical: string,
  hits: RerankHit[],
  proposed: number,
  modelVersion: string,
  [t0, t1, t2, t3]: number[],
): RerankOutcome {
  return {
    canonical,
    hits,
    proposed,
    assembled: proposed,
    effectiveShortlist: proposed,
    modelVersion,
    timing: {
      query: round3(t1 - t0),
      proposal: round3(t2 - t1),
      assembly_and_scoring: round3(t3 - t2),
      total: round3(t3 - t0),
    },
  };
}
