/**
 * ADMET predictions for query molecules (GET /predict_array): a lazily started predictor pool
 * (worker threads; nothing runs on the API's event loop), the column-oriented answer in the client
 * contract's property order, and an optional CSV export into the caller's file area.
 */
import type { Logger } from '../../platform/logger.ts';
import { invalidSmiles, notFound, validationError } from '../../platform/errors.ts';
import type { ObjectStore } from '../../platform/object-store/index.ts';
import { DESCRIPTOR_NAMES } from '../../engine/chem/descriptors.ts';
import {
  ADMET_ENDPOINTS,
  createAdmetPredictor,
  oodNames,
  type AdmetPredictor,
  type AdmetTable,
} from '../../engine/admet/index.ts';
import { userFileKey } from './jobs-files.ts';
import { requestLimits } from './request-limits.ts';

/** Most molecules per /predict_array request. */
export const MAX_PREDICT_MOLECULES = 1000;
/** Where exports go inside the caller's file area (users/<account>/files/...). */
export const EXPORT_FOLDER = 'exports';

export type Cell = string | number | boolean | null | string[];
/** Column name → one value per input row (all lists of equal length). */
export type PredictTable = Record<string, Cell[]>;

export interface PredictRequest {
  smiles: string[];
  descriptors: boolean;
  properties: boolean;
  /** Export name (sanitised); empty = no export. */
  filename: string;
}

export interface PredictAnswer {
  table: PredictTable;
  /** The export, when one was written: its path in the file area and a URL to fetch it. */
  file?: { path: string; url: string };
}

export interface AdmetServiceDeps {
  objects: ObjectStore;
  publicUrl: string;
  log?: Logger;
  /** Predictor threads (default 1). */
  threads?: number;
  /** An already started predictor (tests, benchmarks); otherwise one is started on first use. */
  predictor?: AdmetPredictor;
}

/**
 * A safe export file name: the last path segment, characters outside [A-Za-z0-9._-] replaced by
 * '_', '.csv' appended. Throws a 422 naming `filename` when nothing usable is left.
 */
export function exportFileName(raw: string): string {
  const base = raw.trim().split(/[\\/]/).pop() ?? '';
  const name = base
    .replace(/\.csv$/i, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 100);
  if (!name)
    throw validationError(
      ['query', 'filename'],
      `no usable file name in ${JSON.stringify(raw.slice(0, 100))}; use letters, digits, '.', '_' or '-'`,
    );
  return `${name}.csv`;
}

/** Turns a predicted batch into the column-oriented answer (order: smiles, 22 ADMET, 11 descriptors, flags). */
export function toPredictTable(
  inputs: readonly string[],
  t: AdmetTable,
  req: Pick<PredictRequest, 'descriptors' | 'properties'>,
): PredictTable {
  const n = t.n;
  const num = (v: number): number | null => (Number.isNaN(v) ? null : v);
  const out: PredictTable = { smiles: t.canonical, search_input: [...inputs] };
  if (req.properties)
    ADMET_ENDPOINTS.forEach((key, e) => (out[key] = Array.from(t.scores.subarray(e * n, (e + 1) * n), num)));
  if (req.descriptors)
    DESCRIPTOR_NAMES.forEach(
      (key, j) =>
        (out[key] = Array.from({ length: n }, (_, i) => num(t.descriptors[i * DESCRIPTOR_NAMES.length + j]))),
    );
  if (req.properties) {
    out.in_domain = Array.from({ length: n }, (_, i) => (t.errors[i] ? null : t.ood[i] === 0));
    out.admet_out_of_domain = Array.from({ length: n }, (_, i) => (t.errors[i] ? null : oodNames(t.ood[i])));
  }
  out.error = t.errors;
  return out;
}

const csvCell = (v: Cell): string => {
  const s = v === null ? '' : Array.isArray(v) ? v.join(';') : String(v);
  return /[",\r\n;]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** The table as CSV (header row; list cells joined with ';'). */
export function predictTableCsv(table: PredictTable): string {
  const cols = Object.keys(table);
  const n = table[cols[0]]?.length ?? 0;
  const lines = [cols.join(',')];
  for (let i = 0; i < n; i++) lines.push(cols.map((c) => csvCell(table[c][i])).join(','));
  return lines.join('\r\n') + '\r\n';
}

/** Creates the service; close() stops the predictor threads if they were started. */
export function createAdmetService(deps: AdmetServiceDeps) {
  let started: Promise<AdmetPredictor> | undefined = deps.predictor
    ? Promise.resolve(deps.predictor)
    : undefined;
  const predictor = (): Promise<AdmetPredictor> => {
    started ??= createAdmetPredictor({ threads: deps.threads ?? 1 }).catch((err) => {
      started = undefined; // a later request may retry (e.g. after the model files are restored)
      throw err;
    });
    return started;
  };
  const exportKey = (accountId: string, file: string) => userFileKey(accountId, `${EXPORT_FOLDER}/${file}`);

  return {
    /** Predicts the inputs; writes the CSV export when `filename` is not empty. */
    async predictArray(accountId: string, req: PredictRequest): Promise<PredictAnswer> {
      if (req.smiles.length === 0)
        throw validationError(
          ['query', 'search_input'],
          'give at least one SMILES (repeat search_input for several)',
        );
      if (req.smiles.length > MAX_PREDICT_MOLECULES) {
        throw validationError(
          ['query', 'search_input'],
          `at most ${MAX_PREDICT_MOLECULES} molecules per request (got ${req.smiles.length})`,
          'value_error.too_large',
        );
      }
      const file = req.filename.trim() ? exportFileName(req.filename) : undefined;
      const t0 = performance.now();
      const table = toPredictTable(
        req.smiles,
        // The client going away withdraws queued batches; no 30 s deadline: a full-size request is
        // legitimately long on one thread, and its later batches already yield to new requests.
        await (await predictor()).predictSmiles(req.smiles, { signal: requestLimits().signal }),
        req,
      );
      deps.log?.debug(
        { molecules: req.smiles.length, ms: Math.round(performance.now() - t0) },
        'admet predictions',
      );
      if (!file) return { table };
      const key = exportKey(accountId, file);
      await deps.objects.put(key, predictTableCsv(table), 'text/csv; charset=utf-8');
      const url =
        (await deps.objects.presignGet(key, 3600, file)) ??
        `${deps.publicUrl}/${EXPORT_FOLDER}/${encodeURIComponent(file)}`;
      return { table, file: { path: `${EXPORT_FOLDER}/${file}`, url } };
    },

    /**
     * One molecule (GET /predict): the row of predictArray as an object, properties and
     * descriptors grouped; a SMILES that does not parse is a 422 naming search_input.
     */
    async predictOne(accountId: string, req: { smiles: string; descriptors: boolean; properties: boolean }) {
      if (!req.smiles.trim()) throw validationError(['query', 'search_input'], 'a SMILES is required');
      const { table } = await this.predictArray(accountId, { ...req, smiles: [req.smiles], filename: '' });
      const cell = (name: string) => table[name]?.[0];
      if (cell('error'))
        throw invalidSmiles(['query', 'search_input'], req.smiles, `SMILES (${String(cell('error'))})`);
      const pick = (names: readonly string[]): Record<string, number | null> =>
        Object.fromEntries(names.map((n) => [n, (cell(n) as number | null | undefined) ?? null]));
      return {
        smiles: req.smiles,
        canonical_smiles: cell('smiles') as string,
        ...(req.properties
          ? {
              properties: pick(ADMET_ENDPOINTS),
              in_domain: cell('in_domain') as boolean,
              out_of_domain: (cell('admet_out_of_domain') as string[] | null) ?? [],
            }
          : {}),
        ...(req.descriptors ? { descriptors: pick(DESCRIPTOR_NAMES) } : {}),
      };
    },

    /** An export of the caller, for the API to serve when the store cannot presign. */
    async exportFile(accountId: string, name: string) {
      const file = exportFileName(name);
      const key = exportKey(accountId, file);
      const bytes = await deps.objects.head(key);
      if (bytes === undefined) throw notFound(`export ${file}`);
      return { stream: await deps.objects.getStream(key), bytes, filename: file };
    },

    async close(): Promise<void> {
      const p = started;
      started = undefined;
      if (p && !deps.predictor) await (await p.catch(() => undefined))?.close();
    },
  };
}

export type AdmetService = ReturnType<typeof createAdmetService>;
