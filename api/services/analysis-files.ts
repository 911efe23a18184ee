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
  max = MAX_FILE_MOLECULES,
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
  if (!/\.smi$/i.test(input)) return { input, smiles: readSmilesColumn(text, smilesCol, max).smiles };
  const smiles = text
    .split(/\r?\n/)
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);
  if (!smiles.length) throw validationError(['query', 'input_file'], 'no SMILES in the file');
  if (smiles.length > max)
    throw validationError(
      ['query', 'input_file'],
      `at most ${max} molecules per file (got ${smiles.length})`,
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

export { csvCell, npyFloat32 } from '../../engine/export/npy.ts';
