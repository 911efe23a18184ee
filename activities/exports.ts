/**
 * Download activities: stream a job result into one export format and upload it (multipart on S3),
 * and record the download's status. The result file is read once; rows are produced lazily, so
 * no formatted output is ever held whole in memory.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/object-store/index.ts';
import type { Downloads, DownloadStatus } from '../store/downloads.ts';
import { getRDKit } from '../engine/chem/index.ts';
import {
  BASE_COLUMNS,
  decodeJobResult,
  EXPORT_CONTENT_TYPES,
  exportStream,
  PROPERTY_KEYS,
  SCORE_COLUMNS_3D,
  resultView,
  type ExportColumn,
  type ExportFormat,
  type ExportValue,
  type JobResult,
  type ResultFilter,
} from '../engine/export/index.ts';
import { round5 } from '../engine/export/result-view.ts';
import { sdf3dRecords } from './exports-3d.ts';
import { INVALID_INPUT_FAILURE } from '../workflows/contracts.ts';

export interface ExportOptionsInput extends ResultFilter {
  includeProperties: boolean;
  /** Adds the job name, query and database columns of provenance to every row. */
  includeMetadata: boolean;
  /**
   * Synthon-space results: adds product_id, reaction_id and synthon_<n>_id / synthon_<n>_smiles
   * (n = 1..4) columns. Default true; results of enumerated catalogs have none.
   */
  includeSynthons?: boolean;
}

/** Most slots of a reaction (the synthon format's limit), so every export has the same columns. */
export const SYNTHON_SLOTS = 4;

export interface ExportInput {
  downloadId: string;
  jobName: string;
  resultKey: string;
  format: ExportFormat;
  /** Object key to write (under the owner's downloads area). */
  key: string;
  options: ExportOptionsInput;
}

export interface ExportResult {
  key: string;
  bytes: number;
  rows: number;
}

export interface DownloadRecordInput {
  downloadId: string;
  status?: DownloadStatus;
  keys?: Record<string, string>;
  error?: string;
}

export interface ExportActivityDeps {
  log: Logger;
  downloads: Downloads;
  objects: ObjectStore;
}

/** Columns of an export: the page columns (in page order), properties and metadata when asked. */
export function exportColumns(
  opts: Pick<ExportOptionsInput, 'includeProperties' | 'includeMetadata'>,
  threeD: { sdf: boolean } | false = false,
  synthons = false,
): ExportColumn[] {
  const cols: ExportColumn[] = BASE_COLUMNS.map((name) => ({
    name,
    type: name === 'similarity' ? 'number' : 'string',
  }));
  cols.push({ name: 'in_prop_range', type: 'boolean' });
  // 3D results: both scores as the page names them; the SDF also says which query conformer
  // (a "Query Molecule" record) each hit is aligned onto.
  if (threeD) for (const name of SCORE_COLUMNS_3D) cols.push({ name, type: 'number' });
  if (threeD && threeD.sdf) cols.push({ name: 'query_conformer', type: 'number' });
  if (opts.includeProperties) for (const k of PROPERTY_KEYS) cols.push({ name: k, type: 'number' });
  if (synthons) {
    cols.push({ name: 'product_id', type: 'string' }, { name: 'reaction_id', type: 'string' });
    for (let n = 1; n <= SYNTHON_SLOTS; n++)
      cols.push({ name: `synthon_${n}_id`, type: 'string' }, { name: `synthon_${n}_smiles`, type: 'string' });
  }
  if (opts.includeMetadata)
    cols.push({ name: 'job_name', type: 'string' }, { name: 'query_smiles', type: 'string' });
  return cols;
}

/** synthon_<n>_id, synthon_<n>_smiles for n = 1..4 from a row's synthons JSON (null past its slots). */
function synthonCells(json: string): ExportValue[] {
  const list = json ? (JSON.parse(json) as { slot: number; synthon_id: string; smiles: string }[]) : [];
  const out: ExportValue[] = [];
  for (let n = 0; n < SYNTHON_SLOTS; n++) out.push(list[n]?.synthon_id ?? null, list[n]?.smiles ?? null);
  return out;
}

function heartbeat(details?: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // called outside an activity (tests, benches)
  }
}

/**
 * Streams one format of a job result to `input.key` (rows filtered as the download asked): the
 * body of the exportJobResult activity, callable alone (the export benchmark measures it).
 */
export async function writeExport(
  store: ObjectStore,
  log: Logger,
  input: ExportInput,
): Promise<ExportResult> {
  let result: JobResult;
  try {
    result = decodeJobResult(await store.getBytes(input.resultKey), { conformers: input.format === 'sdf' });
  } catch (err) {
    if ((await store.head(input.resultKey)) === undefined)
      throw ApplicationFailure.create({
        message: `job ${input.jobName} has no result`,
        type: INVALID_INPUT_FAILURE,
        nonRetryable: true,
      });
    throw err;
  }
  const view = resultView(result, input.options);
  const query = result.metadata['molsearch.query'] ?? '';
  const { includeProperties, includeMetadata } = input.options;
  const t3 = result.threeD;
  const sdf = input.format === 'sdf';
  const syn = input.options.includeSynthons !== false ? result.synthon : undefined;
  const columns = exportColumns(input.options, t3 ? { sdf } : false, !!syn);
  const sdf3d = sdf && t3 ? await sdf3dRecords(result, view.indices) : undefined;
  function* rows(): Generator<ExportValue[]> {
    // The query's conformers first, so a viewer shows the hits over them.
    if (sdf3d) yield* sdf3d.queryRows(columns, input.jobName);
    for (let j = 0; j < view.indices.length; j++) {
      const i = view.indices[j];
      const row: ExportValue[] = [
        result.smiles[i],
        result.id[i],
        result.database[i],
        result.dbId[i],
        round5(result.similarity[i]),
        view.inRange[j] === 1,
      ];
      // Both 3D scores rounded as `similarity` is (the job pages show the same values).
      if (t3) row.push(round5(t3.shape[i]), round5(t3.esp[i]));
      if (t3 && sdf) row.push(t3.queryConf[i]);
      if (includeProperties) for (const col of result.props) row.push(col[i]);
      if (syn) row.push(result.id[i], syn.reactionId[i], ...synthonCells(syn.synthons[i]));
      if (includeMetadata) row.push(input.jobName, query);
      if ((j & 4095) === 4095) heartbeat({ row: j });
      yield row;
    }
  }
  let molblock: ((s: string) => string | undefined) | undefined;
  if (input.format === 'sdf') {
    const rd = await getRDKit();
    molblock = (smiles) => {
      const mol = rd.get_mol(smiles);
      if (!mol) return undefined;
      try {
        return mol.is_valid() ? mol.get_molblock() : undefined;
      } finally {
        mol.delete();
      }
    };
  }
  const stream = exportStream(input.format, columns, rows(), { molblock, molblockAt: sdf3d?.molblockAt });
  const { bytes } = await store.putStream(input.key, stream, EXPORT_CONTENT_TYPES[input.format]);
  log.info(
    { download: input.downloadId, format: input.format, rows: view.indices.length, bytes },
    'export written',
  );
  return { key: input.key, bytes, rows: view.indices.length };
}

/** The download activities over the worker's object store and downloads store. */
export function createExportActivities(deps: ExportActivityDeps) {
  return {
    /** Streams one format of a job result to `key` (rows filtered as the download asked). */
    exportJobResult: (input: ExportInput): Promise<ExportResult> =>
      writeExport(deps.objects, deps.log, input),

    /** Records a download's status and finished files. */
    async downloadRecord(input: DownloadRecordInput): Promise<void> {
      const { downloadId, ...u } = input;
      await deps.downloads.update(downloadId, u);
    },
  };
}

export type ExportActivities = ReturnType<typeof createExportActivities>;
