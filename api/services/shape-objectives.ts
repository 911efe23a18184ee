/**
 * 3D objective scores for v2 selections (`cheese.shape`, `cheese.electrostatic`): the selection
 * engine cannot embed molecules or read conformers, so the API proposes and scores here and hands
 * the engine plain ExternalObjectiveScores. Each 3D objective's reference is embedded by the chem3d
 * worker; its `shortlist` best rows by the 3D first stage are proposed; those and the rows the
 * ECFP4 objectives propose are aligned onto every 3D reference and scored exactly (the scores of
 * /molsearch and /api/v2/search_cheese for the same pairs).
 */
import type { ExternalObjectiveScores } from '../../engine/selection/index.ts';
import type { Molecule3d } from '../../engine/catalog/three-d-schema.ts';
import type { ParsedMolecule } from '../../engine/chem/index.ts';
import type { QueryEmbedder } from './query-embedder.ts';
import { unionCandidates, type Candidate, type ShapeStages } from './shape-stages.ts';

export interface ObjectiveScoresRequest {
  dbName: string;
  /** The 3D objectives: index into the selection's objectives, reference SMILES, metric, its path. */
  objectives: { index: number; smiles: string; metric: 'shape' | 'esp'; loc: (string | number)[] }[];
  /** Rows each 3D reference proposes (0: none, only `extraRows` are scored, as for a sample). */
  shortlist: number;
  /** Rows (library numbering) proposed by the other objectives, which need 3D scores too. */
  extraRows: ArrayLike<number>;
}

export type ShapeObjectives = (req: ObjectiveScoresRequest) => Promise<ExternalObjectiveScores>;

export function createShapeObjectives(deps: {
  stages: ShapeStages;
  embedder: QueryEmbedder;
  fingerprint(smiles: string, loc: (string | number)[]): Promise<ParsedMolecule>;
  checkReady(dbNames: string[], loc?: (string | number)[]): Promise<void>;
}): ShapeObjectives {
  return async (req) => {
    await deps.checkReady([req.dbName], ['body', 'database', 'database_id']);
    // One embedding and one exact pass per distinct reference, however many objectives name it.
    const refs = new Map<string, { q: Molecule3d; fp: Uint8Array }>();
    for (const o of req.objectives)
      if (!refs.has(o.smiles)) {
        const p = await deps.fingerprint(o.smiles, o.loc);
        refs.set(o.smiles, { q: await deps.embedder.embed(o.smiles, o.loc), fp: p.fp });
      }
    let candidates: Candidate[] = [];
    for (const { q } of req.shortlist > 0 ? refs.values() : []) {
      const first = await deps.stages.firstStage([q], [req.dbName], req.shortlist);
      candidates = unionCandidates(candidates, first.candidates);
    }
    const extra = Array.from(req.extraRows, (r) => deps.stages.fromGlobalRow(req.dbName, r));
    candidates = unionCandidates(candidates, extra);
    const perRef = new Map<string, { shape: Float64Array; esp: Float64Array }>();
    for (const [smiles, { q, fp }] of refs) {
      const scored = await deps.stages.exact([q], [fp], candidates);
      perRef.set(smiles, {
        shape: Float64Array.from(scored, (c) => c.shape ?? NaN),
        esp: Float64Array.from(scored, (c) => c.esp ?? NaN),
      });
    }
    const scores: Record<number, Float64Array> = {};
    for (const o of req.objectives) scores[o.index] = perRef.get(o.smiles)![o.metric];
    return {
      rows: Int32Array.from(candidates, (c) => deps.stages.globalRow(c)),
      scores,
      generation: '3d_first_stage_usrcat+exact_knn_ecfp4_tanimoto',
    };
  };
}
