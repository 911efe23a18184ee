/**
 * Clustering of a SMILES list (Butina on Tanimoto, k-means on embeddings, k-medoids on Tanimoto
 * or Euclidean distances) with the stored model for /nearest_cluster, and placing new molecules
 * against such a model. Cluster members are input indices (rows that do not parse are left out).
 */
import type { RDKitModule } from '../../chem/rdkit.ts';
import { butina } from '../cluster/butina.ts';
import { kmeans } from '../cluster/kmeans.ts';
import { euclideanDistances, kmedoids, type DistanceMatrix } from '../cluster/kmedoids.ts';
import { matrixFromRows, squaredDistance, type Matrix } from '../cluster/matrix.ts';
import {
  CLUSTER_METHODS,
  CLUSTER_METRICS,
  CLUSTERING_FORMAT,
  nearestCluster,
  parseClustering,
  serializeClustering,
  type ClusteringModel,
  type ClusterMethod,
  type ClusterMetric,
} from '../cluster/model.ts';
import { AnalysisError, checkNumber } from '../errors.ts';
import { sliceSet, type FingerprintSet } from '../fingerprints.ts';
import { ANALYSIS_LIMITS } from '../limits.ts';
import { metricFor } from '../similarity/metrics.ts';
import { tanimotoMatrixInto } from '../similarity/tanimoto-matrix.ts';
import { embeddingKind } from './embed.ts';
import { parseList, type ParsedList } from './molecules.ts';

export interface ClusterParams {
  method: string;
  threshold: number;
  nClusters: number;
  seed: number;
  embeddingType: string;
  metric: string;
  searchType: string;
  /** Molecules accepted: the synchronous limit unless a job sets its own (ANALYSIS_LIMITS.max*). */
  maxMolecules?: number;
}

export interface ClusterAnswer {
  method: ClusterMethod;
  metric: ClusterMetric;
  threshold?: number;
  n_clusters: number;
  labels: (number | null)[];
  clusters: {
    cluster: number;
    size: number;
    representative: { index: number; smiles: string };
    members: number[];
  }[];
  errors: (string | null)[];
  /** The stored form (molsearch-clustering/1) for /nearest_cluster. */
  model: string;
}

function oneOf<T extends string>(values: readonly T[], value: string, field: string): T {
  if ((values as readonly string[]).includes(value)) return value as T;
  throw new AnalysisError(
    'invalid_parameter',
    field,
    `${JSON.stringify(value)} is not allowed; allowed: ${values.join(', ')}`,
  );
}

function tanimotoDistances(set: FingerprintSet): DistanceMatrix {
  const values = new Float32Array(set.n * set.n);
  tanimotoMatrixInto(set, set, values, 0, set.n);
  for (let i = 0; i < values.length; i++) values[i] = 1 - values[i];
  return { n: set.n, values };
}

function packRows(set: FingerprintSet, rows: number[]): FingerprintSet {
  const fps = new Uint8Array(rows.length * 256);
  rows.forEach((r, c) => fps.set(sliceSet(set, r, r + 1).fps, c * 256));
  return { n: rows.length, fps, popcounts: Uint16Array.from(rows, (r) => set.popcounts[r]) };
}

/** Groups (row-space) → clusters with representatives, in input indices. */
function summarise(list: ParsedList, groups: number[][], reps: number[]) {
  return groups.map((members, c) => ({
    cluster: c,
    size: members.length,
    representative: { index: list.valid[reps[c]], smiles: list.canonical[list.valid[reps[c]]]! },
    members: members.map((r) => list.valid[r]),
  }));
}

export function cluster(rd: RDKitModule, smiles: string[], p: ClusterParams): ClusterAnswer {
  metricFor(p.searchType);
  const method = oneOf(CLUSTER_METHODS, p.method, 'method');
  const kind = embeddingKind(p.embeddingType);
  const metric: ClusterMetric =
    method === 'butina'
      ? 'tanimoto'
      : method === 'kmeans'
        ? 'euclidean'
        : oneOf(CLUSTER_METRICS, p.metric, 'metric');
  if (method === 'butina') checkNumber('threshold', p.threshold, 0, 1);
  const max =
    method === 'kmedoids'
      ? Math.min(p.maxMolecules ?? ANALYSIS_LIMITS.syncClusterMolecules, ANALYSIS_LIMITS.maxMedoidMolecules)
      : (p.maxMolecules ?? ANALYSIS_LIMITS.syncClusterMolecules);
  const list = parseList(rd, smiles, 'search_input', max, kind);
  if (list.valid.length === 0)
    throw new AnalysisError('empty_input', 'search_input', 'none of the SMILES could be parsed');
  let groups: number[][];
  let reps: number[];
  const model: ClusteringModel = {
    format: CLUSTERING_FORMAT,
    method,
    search_type: 'morgan',
    metric,
    clusters: [],
  };
  if (method === 'butina') {
    groups = butina(list.fps, p.threshold);
    reps = groups.map((g) => g[0]);
    model.threshold = p.threshold;
  } else {
    const data: Matrix = matrixFromRows(list.vectors, 'search_input');
    let labels: Int32Array;
    let centers: Matrix | undefined;
    if (method === 'kmeans') {
      const r = kmeans(data, p.nClusters, { seed: p.seed });
      labels = r.labels;
      centers = r.centers;
      reps = Array.from({ length: p.nClusters }, () => -1);
      const best = new Float64Array(p.nClusters).fill(Infinity);
      labels.forEach((c, i) => {
        const d = squaredDistance(data, i, r.centers, c);
        if (d < best[c]) [best[c], reps[c]] = [d, i];
      });
    } else {
      const dist = metric === 'tanimoto' ? tanimotoDistances(list.fps) : euclideanDistances(data);
      const r = kmedoids(dist, p.nClusters, { seed: p.seed });
      labels = r.labels;
      reps = Array.from(r.medoids);
      if (metric === 'euclidean')
        centers = matrixFromRows(reps.map((m) => data.values.subarray(m * data.d, (m + 1) * data.d)));
    }
    groups = reps.map(() => []);
    labels.forEach((c, i) => groups[c].push(i));
    if (centers) {
      model.centers = centers;
      model.embedding = kind;
    }
  }
  const clusters = summarise(list, groups, reps);
  model.clusters = clusters.map((c) => ({
    size: c.size,
    representative: { smiles: c.representative.smiles },
  }));
  if (metric === 'tanimoto') model.fingerprints = packRows(list.fps, reps);
  const labels: (number | null)[] = smiles.map(() => null);
  clusters.forEach((c) => c.members.forEach((i) => (labels[i] = c.cluster)));
  return {
    method,
    metric,
    ...(method === 'butina' ? { threshold: p.threshold } : {}),
    n_clusters: clusters.length,
    labels,
    clusters,
    errors: list.errors,
    model: serializeClustering(model),
  };
}

export interface NearestClusterAnswer {
  method: ClusterMethod;
  metric: ClusterMetric;
  cluster: (number | null)[];
  /** Tanimoto to the representative (Tanimoto models) or Euclidean distance to the centre. */
  score: (number | null)[];
  within: (boolean | null)[];
  errors: (string | null)[];
}

export function placeInClustering(
  rd: RDKitModule,
  modelText: string,
  smiles: string[],
): NearestClusterAnswer {
  const model = parseClustering(modelText);
  const list = parseList(
    rd,
    smiles,
    'search_input',
    ANALYSIS_LIMITS.syncMolecules,
    model.embedding ?? 'bits',
  );
  const out: NearestClusterAnswer = {
    method: model.method,
    metric: model.metric,
    cluster: smiles.map(() => null),
    score: smiles.map(() => null),
    within: smiles.map(() => null),
    errors: list.errors,
  };
  if (!list.valid.length) return out;
  const placed = nearestCluster(
    model,
    model.metric === 'tanimoto'
      ? { fps: list.fps }
      : { vectors: matrixFromRows(list.vectors, 'search_input') },
  );
  list.valid.forEach((i, r) => {
    out.cluster[i] = placed.cluster[r];
    out.score[i] = placed.score[r];
    out.within[i] = placed.within[r] === 1;
  });
  return out;
}
