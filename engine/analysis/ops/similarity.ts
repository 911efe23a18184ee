/**
 * Pair, batch and matrix similarity of SMILES lists: parse, then the metric of the search type
 * (engine/analysis/similarity). Scores are RDKit's exact f64 Tanimoto; rows and columns of
 * molecules that do not parse are null, with their errors.
 */
import type { RDKitModule } from '../../chem/rdkit.ts';
import { ANALYSIS_LIMITS } from '../limits.ts';
import { AnalysisError } from '../errors.ts';
import { metricFor } from '../similarity/metrics.ts';
import { batchSimilarity, pairSimilarity, similarityMatrix } from '../similarity/operations.ts';
import { exactTanimoto, parseList, parseOne } from './molecules.ts';

export interface PairAnswer {
  similarity: number;
  metric: string;
  canonical_smiles: [string, string];
}

export function pair(rd: RDKitModule, a: string, b: string, searchType: string): PairAnswer {
  const metric = metricFor(searchType);
  const pa = parseOne(rd, a, 'smiles_1');
  const pb = parseOne(rd, b, 'smiles_2');
  const s = pairSimilarity(metric, pa.fps, pb.fps);
  return {
    similarity: exactTanimoto(s, pa.fps.popcounts[0], pb.fps.popcounts[0]),
    metric: metric.id,
    canonical_smiles: [pa.canonical[0]!, pb.canonical[0]!],
  };
}

export interface BatchAnswer {
  canonical_query: string;
  canonical_smiles: (string | null)[];
  similarity: (number | null)[];
  error: (string | null)[];
}

export function batch(rd: RDKitModule, query: string, list: string[], searchType: string): BatchAnswer {
  const metric = metricFor(searchType);
  const q = parseOne(rd, query, 'search_input');
  const t = parseList(rd, list, 'smiles_list', ANALYSIS_LIMITS.syncMolecules);
  const similarity: (number | null)[] = list.map(() => null);
  if (t.valid.length) {
    const s = batchSimilarity(metric, q.fps, t.fps);
    t.valid.forEach((i, r) => {
      similarity[i] = exactTanimoto(s[r], q.fps.popcounts[0], t.fps.popcounts[r]);
    });
  }
  return { canonical_query: q.canonical[0]!, canonical_smiles: t.canonical, similarity, error: t.errors };
}

export interface MatrixAnswer {
  rows: number;
  cols: number;
  row_smiles: (string | null)[];
  col_smiles: (string | null)[];
  matrix: ((number | null)[] | null)[];
  errors_1: (string | null)[];
  errors_2: (string | null)[];
}

/** The N × M matrix (square of list 1 when list 2 is absent), at most `maxCells` cells. */
export function matrix(
  rd: RDKitModule,
  list1: string[],
  list2: string[] | undefined,
  searchType: string,
  maxCells: number = ANALYSIS_LIMITS.syncMatrixCells,
): MatrixAnswer {
  const metric = metricFor(searchType);
  const field2 = list2 ? 'smiles_list_2' : 'smiles_list_1';
  const cells = list1.length * (list2 ?? list1).length;
  if (cells > maxCells)
    throw new AnalysisError(
      'too_large',
      field2,
      `at most ${maxCells} matrix cells (rows × columns) in one synchronous call, got ${cells}`,
    );
  const a = parseList(rd, list1, 'smiles_list_1', ANALYSIS_LIMITS.syncMolecules);
  const b = list2 ? parseList(rd, list2, 'smiles_list_2', ANALYSIS_LIMITS.syncMolecules) : a;
  const out: MatrixAnswer = {
    rows: list1.length,
    cols: (list2 ?? list1).length,
    row_smiles: a.canonical,
    col_smiles: b.canonical,
    matrix: list1.map(() => null),
    errors_1: a.errors,
    errors_2: b.errors,
  };
  if (!a.valid.length || !b.valid.length) return out;
  const m = similarityMatrix(metric, a.fps, b.fps, maxCells);
  a.valid.forEach((i, r) => {
    const row: (number | null)[] = new Array(out.cols).fill(null);
    b.valid.forEach((j, c) => {
      row[j] = exactTanimoto(m.values[r * m.cols + c], a.fps.popcounts[r], b.fps.popcounts[c]);
    });
    out.matrix[i] = row;
  });
  return out;
}
