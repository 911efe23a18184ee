/**
 * The file variants of the analysis operations (/embeddings_file, /visualize_file): read the SMILES
 * of an uploaded file in the caller's area, write the results next to it in `dest_folder`. Paths
 * are checked like /upload_file paths (422 before any read or write). Files are answered
 * synchronously up to MAX_FILE_MOLECULES rows, the limit /search_file already states.
 */
import { validationError } from '../../platform/errors.ts';
import type { ObjectStore } from '../../platform/object-store/index.ts';
import {
  checkUserPath,
  MAX_FILE_MOLECULES,
  MAX_UPLOAD_BYTES,
  readSmilesColumn,
  userFileKey,
} from './jobs-files.ts';

export { MAX_FILE_MOLECULES };

/** Reads the SMILES of `input_file`: CSV/TSV with a header and `smilesCol`, or .smi (first field). */
export async function readInputSmiles(
  objects: ObjectStore,
  accountId: string,
  rawInput: string,
  smilesCol: string,
): Promise<{ input: string; smiles: string[] }> {
  const input = checkUserPath(rawInput, 'input_file');
  const key = userFileKey(accountId, input);
  const size = await objects.head(key);
  if (size === undefined)
    throw validationError(
      ['query', 'input_file'],
      `no file ${JSON.stringify(input)} in your file area; upload it first with POST /upload_file`,
      'value_error.not_found',
    );
  if (size > MAX_UPLOAD_BYTES) throw validationError(['query', 'input_file'], 'file too large');
  const text = Buffer.from(await objects.getBytes(key)).toString('utf8');
  if (!/\.smi$/i.test(input)) return { input, smiles: readSmilesColumn(text, smilesCol).smiles };
  const smiles = text
    .split(/\r?\n/)
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);
  if (!smiles.length) throw validationError(['query', 'input_file'], 'no SMILES in the file');
  if (smiles.length > MAX_FILE_MOLECULES)
    throw validationError(
      ['query', 'input_file'],
      `at most ${MAX_FILE_MOLECULES} molecules per file (got ${smiles.length})`,
      'value_error.too_large',
    );
  return { input, smiles };
}

/** `<dest>/<input file stem><suffix>`, the folder checked as a user path naming `dest_folder`. */
export function outputPath(rawDest: string, input: string, suffix: string): string {
  const dest = checkUserPath(rawDest, 'dest_folder');
  const stem = (input.split('/').pop() ?? input).replace(/\.(csv|tsv|txt|smi)$/i, '');
  return `${dest}/${stem}${suffix}`;
}

/** A NumPy .npy (format 1.0) of a row-major little-endian float32 matrix, readable by numpy.load. */
export function npyFloat32(rows: number, cols: number, values: Float32Array): Uint8Array {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${rows}, ${cols}), }`;
  // magic (6) + version (2) + header length (2) + header, padded with spaces to a multiple of 64, '\n' last.
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = header.padEnd(total - 10 - 1, ' ') + '\n';
  const out = new Uint8Array(total + values.byteLength);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 0);
  new DataView(out.buffer).setUint16(8, header.length, true);
  out.set(Buffer.from(header, 'latin1'), 10);
  const body = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  out.set(body, total);
  return out;
}

/** One CSV cell (quoted when needed). */
export const csvCell = (v: unknown): string => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
