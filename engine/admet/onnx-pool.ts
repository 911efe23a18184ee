/**
 * The ADMET models at serving time: one onnxruntime session per endpoint, loaded once per thread,
 * fed the feature rows of engine/admet/features.ts. Every graph maps `features` float32 [N, 2091]
 * to `score` float32 [N] in the units of models/README.md (probabilities for classifiers).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { DomainError } from '../../platform/errors.ts';
import {
  checkDomain,
  listOnBits,
  prepareDomainCheck,
  type DomainCheck,
  type DomainRecord,
} from './domain.ts';
import { ADMET_ENDPOINTS, type AdmetEndpoint } from './endpoints.ts';
import { ADMET_FEATURE_LENGTH, ADMET_FEATURE_SPEC_SHA256 } from './features.ts';

/** Where the committed models live. */
export const DEFAULT_MODEL_DIR = fileURLToPath(new URL('../../models/onnx/', import.meta.url));

/** The parts of models/onnx/manifest.json the serving side relies on. */
export interface AdmetManifest {
  version: string;
  feature_spec_sha256: string;
  n_features: number;
  input: string;
  output: string;
  domain_file: string;
  endpoints: Record<
    AdmetEndpoint,
    { file: string; sha256: string; task: 'regression' | 'binary'; units: string; metric: string }
  >;
}

/** Predictions for a batch, one array of length n per endpoint. */
export interface AdmetBatchResult {
  scores: Record<AdmetEndpoint, Float32Array>;
  /** 1 where the molecule is inside that model's applicability domain. */
  inDomain: Record<AdmetEndpoint, Uint8Array>;
}

/** Open ADMET models; call close() to free the native sessions. */
export interface AdmetModels {
  readonly manifest: AdmetManifest;
  /** Scores `n` row-major feature rows (`features.length === n * ADMET_FEATURE_LENGTH`). */
  predictBatch(features: Float32Array, n: number): Promise<AdmetBatchResult>;
  close(): Promise<void>;
}

export interface OpenAdmetModelsOptions {
  dir?: string;
  /** Threads per session; 1 when the caller already runs one pool per worker thread. */
  intraOpThreads?: number;
  /** Check each file's sha256 against the manifest (reads every file once more). */
  verifyChecksums?: boolean;
}

/**
 * Loads the manifest, domain data and the 22 sessions. Throws DomainError `unavailable` when a file is
 * missing or corrupt, or when the models were trained on another feature layout than this engine's.
 */
export async function openAdmetModels(opts: OpenAdmetModelsOptions = {}): Promise<AdmetModels> {
  const dir = opts.dir ?? DEFAULT_MODEL_DIR;
  const manifest = JSON.parse(await readOrFail(join(dir, 'manifest.json'), 'utf8')) as AdmetManifest;
  if (
    manifest.feature_spec_sha256 !== ADMET_FEATURE_SPEC_SHA256 ||
    manifest.n_features !== ADMET_FEATURE_LENGTH
  ) {
    throw new DomainError(
      'unavailable',
      `ADMET models ${manifest.version} were trained on another feature layout than models/features.json`,
    );
  }
  const domainFile = JSON.parse(await readOrFail(join(dir, manifest.domain_file), 'utf8')) as {
    endpoints: Record<string, DomainRecord>;
  };
  const sessions = new Map<AdmetEndpoint, ort.InferenceSession>();
  const domains = new Map<AdmetEndpoint, DomainCheck>();
  try {
    for (const key of ADMET_ENDPOINTS) {
      const entry = manifest.endpoints[key];
      const rec = domainFile.endpoints[key];
      if (!entry || !rec) throw new DomainError('unavailable', `ADMET model ${key} is missing from ${dir}`);
      const bytes = await readOrFail(join(dir, entry.file));
      if (opts.verifyChecksums && createHash('sha256').update(bytes).digest('hex') !== entry.sha256) {
        throw new DomainError(
          'unavailable',
          `ADMET model file ${entry.file} does not match its manifest checksum`,
        );
      }
      sessions.set(
        key,
        await ort.InferenceSession.create(bytes, {
          intraOpNumThreads: opts.intraOpThreads ?? 1,
          interOpNumThreads: 1,
          executionProviders: ['cpu'],
        }),
      );
      domains.set(key, prepareDomainCheck(rec));
    }
  } catch (err) {
    await Promise.all([...sessions.values()].map((s) => s.release()));
    throw err;
  }

  return {
    manifest,
    async predictBatch(features, n) {
      if (!Number.isInteger(n) || n < 0 || features.length !== n * ADMET_FEATURE_LENGTH) {
        throw new RangeError(
          `expected ${n} rows of ${ADMET_FEATURE_LENGTH} features, got ${features.length} floats`,
        );
      }
      const scores = {} as Record<AdmetEndpoint, Float32Array>;
      const inDomain = {} as Record<AdmetEndpoint, Uint8Array>;
      if (n === 0) {
        for (const key of ADMET_ENDPOINTS)
          [scores[key], inDomain[key]] = [new Float32Array(0), new Uint8Array(0)];
        return { scores, inDomain };
      }
      const input = new ort.Tensor('float32', features, [n, ADMET_FEATURE_LENGTH]);
      const on = listOnBits(features, n);
      await Promise.all(
        ADMET_ENDPOINTS.map(async (key) => {
          const out = await sessions.get(key)!.run({ [manifest.input]: input });
          scores[key] = out[manifest.output].data as Float32Array;
          inDomain[key] = new Uint8Array(n);
          checkDomain(domains.get(key)!, features, n, inDomain[key], on);
        }),
      );
      return { scores, inDomain };
    },
    async close() {
      await Promise.all([...sessions.values()].map((s) => s.release()));
      sessions.clear();
    },
  };
}

async function readOrFail(path: string): Promise<Buffer>;
async function readOrFail(path: string, enc: 'utf8'): Promise<string>;
async function readOrFail(path: string, enc?: 'utf8'): Promise<Buffer | string> {
  try {
    return enc ? await readFile(path, enc) : await readFile(path);
  } catch (err) {
    throw new DomainError('unavailable', `cannot read ADMET model file ${path}`, { cause: err });
  }
}
