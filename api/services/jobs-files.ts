/**
 * Files of a user (text tables of SMILES: binary uploads are refused): uploads into, and /search_file outputs to, the user's own area of the object
 * store (`users/<account>/files/<path>`). A path is a relative key inside that area: anything that
 * could leave it ('..', '.', absolute paths, drive letters, backslashes, control characters) is
 * a 422 before any read or write. The object store holds no links, and keys are never joined into
 * file-system paths by this code (the local store re-checks every key).
 */
import { Readable } from 'node:stream';
import { splitQuoted } from '../../engine/catalog/index.ts';
import { DomainError, notFound, validationError } from '../../platform/errors.ts';
import type { ObjectStore } from '../../platform/object-store/index.ts';
import type { UploadRecord, Uploads } from '../../store/jobs.ts';
import type { SearchService, SimilarityResult } from './search-service.ts';
import { ulid } from './jobs-ids.ts';

export const MAX_UPLOAD_BYTES = 16 * 1024 * 1024;
export const MAX_FILE_MOLECULES = 1000;

/** Checks a user-given path and returns it normalised; throws a 422 naming `field` otherwise. */
export function checkUserPath(raw: string, field: string): string {
  const p = raw.trim();
  const bad = (msg: string) => validationError(['query', field], msg, 'value_error.path');
  if (!p) throw bad('a path is required');
  if (p.length > 256) throw bad('path longer than 256 characters');
  if (p.startsWith('/') || p.startsWith('~') || /^[A-Za-z]:/.test(p))
    throw bad('absolute paths are not allowed: give a path inside your own file area');
  if (/[\\\0-\x1f\x7f]/.test(p)) throw bad('backslashes and control characters are not allowed');
  const segs = p.split('/');
  if (segs.some((s) => s === '' || s === '.' || s === '..'))
    throw bad("'..', '.' and empty segments are not allowed: the path must stay inside your own file area");
  if (segs.length > 8) throw bad('at most 8 path segments');
  if (!segs.every((s) => /^[\w .()+,=@-]+$/.test(s)))
    throw bad('path segments may hold letters, digits, spaces and . _ - ( ) + , = @ only');
  return p;
}

/** The object key of a user's file. */
export const userFileKey = (accountId: string, path: string): string => `users/${accountId}/files/${path}`;

/**
 * The bytes of an uploaded table as text: UTF-8 without NUL or other control bytes (tabs and line
 * ends aside). A binary file is refused as such, instead of its bytes being read as column names.
 */
export function decodeTextFile(
  bytes: Uint8Array,
  file: string,
  loc: string[] = ['query', 'input_file'],
): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = '\u0000';
  }
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text))
    throw validationError(
      loc,
      `${JSON.stringify(file)} is not a text file (CSV, TSV or SMI in UTF-8 expected)`,
      'value_error.not_text',
    );
  return text;
}

/** The SMILES of column `col` of a CSV/TSV text (header row required), with their 1-based line numbers. */
export function readSmilesColumn(
  text: string,
  col: string,
  max = MAX_FILE_MOLECULES,
): { smiles: string[]; lines: number[] } {
  const rows = text
    .split(/\r?\n/)
    .map((l, i) => ({ l, n: i + 1 }))
    .filter((r) => r.l.trim() !== '');
  if (!rows.length) throw validationError(['query', 'input_file'], 'the file is empty');
  const sep = rows[0].l.includes('\t') ? '\t' : ',';
  const header = splitQuoted(rows[0].l, sep).map((h) => h.trim());
  const idx = header.indexOf(col);
  if (idx < 0)
    throw validationError(
      ['query', 'smiles_col'],
      `column ${JSON.stringify(col)} not found; columns: ${header.join(', ')}`,
    );
  const cells = rows
    .slice(1)
    .map((r) => ({ s: (splitQuoted(r.l, sep)[idx] ?? '').trim(), n: r.n }))
    .filter((c) => c.s);
  if (cells.length > max)
    throw validationError(
      ['query', 'input_file'],
      `at most ${max} molecules per file (got ${cells.length})` +
        (max === MAX_FILE_MOLECULES ? '; use /submit_molsearch per molecule for larger work' : ''),
      'value_error.too_large',
    );
  if (!cells.length) throw validationError(['query', 'input_file'], `no SMILES in column ${col}`);
  return { smiles: cells.map((c) => c.s), lines: cells.map((c) => c.n) };
}

/** A bad SMILES of a file's row names the file, line and column, not the search's own parameter. */
function inFile(err: unknown, file: string, col: string, lines: number[]): unknown {
  // Unparsable SMILES, and (3D types) molecules the chem3d worker cannot embed.
  if (!(err instanceof DomainError) || !['invalid_smiles', 'validation_error'].includes(err.code)) return err;
  const issues = err.issues.map((i) => {
    const row = typeof i.loc[2] === 'number' ? i.loc[2] : undefined;
    if (i.loc[1] !== 'search_input' || row === undefined) return i;
    const msg = `${JSON.stringify(file)} line ${lines[row]}, column ${JSON.stringify(col)}: ${i.msg}`;
    return { loc: ['query', 'input_file', lines[row]], msg, type: i.type };
  });
  return new DomainError(err.code, issues.map((i) => i.msg).join('; '), { issues });
}

const csvCell = (v: unknown): string => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export interface FileServiceDeps {
  uploads: Uploads;
  objects: ObjectStore;
  search: SearchService;
}

/** Creates the file service (uploads and /search_file). */
export function createFileService(deps: FileServiceDeps) {
  const { uploads } = deps;
  return {
    /**
     * The caller's file area: uploads newest first (`kind: upload`), then what searches and
     * analyses wrote there (`kind: output`, by path; no upload record, so no time). A user trial
     * found results written to the area that no route listed.
     */
    async list(accountId: string) {
      const up = (await uploads.list(accountId)).map((u) => ({
        path: u.path,
        bytes: u.bytes,
        uploaded_at: u.createdAt.toISOString() as string | null,
        kind: 'upload' as const,
      }));
      const seen = new Set(up.map((u) => u.path));
      const prefix = userFileKey(accountId, '');
      // One HEAD per output, at once rather than one after another (a round trip each on S3).
      const keys = (await deps.objects.list(prefix)).sort().filter((k) => !seen.has(k.slice(prefix.length)));
      const sizes = await Promise.all(keys.map((k) => deps.objects.head(k)));
      const outputs = keys.flatMap((k, n) => {
        const bytes = sizes[n];
        const path = k.slice(prefix.length);
        return bytes === undefined ? [] : [{ path, bytes, uploaded_at: null, kind: 'output' as const }];
      });
      return [...up, ...outputs];
    },
    /** A file of the caller's area as a stream, or a 404 naming the path. */
    async open(accountId: string, rawPath: string) {
      const path = checkUserPath(rawPath, 'path');
      const key = userFileKey(accountId, path);
      const bytes = await deps.objects.head(key);
      if (bytes === undefined) throw notFound(`file ${JSON.stringify(path)} in your file area`);
      return { path, bytes, stream: await deps.objects.getStream(key) };
    },
    /** Stores `body` at the user's `path` (overwriting) and records the upload. */
    async upload(accountId: string, rawPath: string, body: Uint8Array): Promise<UploadRecord> {
      const path = checkUserPath(rawPath, 'path');
      if (body.length > MAX_UPLOAD_BYTES)
        throw validationError(['body'], `at most ${MAX_UPLOAD_BYTES} bytes per upload`);
      // The file area holds inputs of /search_file: tables of SMILES, so text only.
      decodeTextFile(body, path, ['body']);
      const objectKey = userFileKey(accountId, path);
      await deps.objects.put(objectKey, body, 'application/octet-stream');
      return uploads.record({ id: `up_${ulid()}`, accountId, path, objectKey, bytes: body.length });
    },

    /**
     * Similarity search for every SMILES of an uploaded file; writes a CSV of the neighbours to
     * the user's `outputFile` and answers the results.
     */
    async searchFile(
      accountId: string,
      req: {
        inputFile: string;
        outputFile?: string;
        smilesCol: string;
        dbNames: string[];
        k: number;
        searchType: string;
        /** Said in the answer's `remarks` (a capped n_neighbors). */
        remarks?: string[];
        /**
         * Searches the file's SMILES (3D types: the shape search, one input at a time); the
         * default is the Morgan batch search. Errors name query.search_input[i].
         */
        run?: (smiles: string[]) => Promise<SimilarityResult[]>;
      },
    ) {
      const input = checkUserPath(req.inputFile, 'input_file');
      const output = checkUserPath(
        req.outputFile?.trim() ? req.outputFile : `${input.replace(/\.[^./]*$/, '')}_results.csv`,
        'output_file',
      );
      const key = userFileKey(accountId, input);
      const size = await deps.objects.head(key);
      if (size === undefined)
        throw validationError(
          ['query', 'input_file'],
          `no file ${JSON.stringify(input)} in your file area; upload it first with POST /upload_file`,
          'value_error.not_found',
        );
      if (size > MAX_UPLOAD_BYTES) throw validationError(['query', 'input_file'], 'file too large');
      const text = decodeTextFile(await deps.objects.getBytes(key), input);
      const { smiles, lines: lineNumbers } = readSmilesColumn(text, req.smilesCol);
      const run =
        req.run ??
        ((all: string[]) =>
          deps.search.batch({
            smiles: all,
            dbNames: req.dbNames,
            k: req.k,
            descriptors: false,
            properties: false,
            filters: [],
            ordering: ['Similarity'],
          }));
      const results: SimilarityResult[] = await run(smiles).catch((err: unknown) => {
        throw inFile(err, input, req.smilesCol, lineNumbers);
      });
      // 3D results carry both scores (as /molsearch names them) after the similarity.
      const scores = results.some((r) => r.rows.some((n) => 'Shapesim' in n)) ? ['Shapesim', 'Espsim'] : [];
      const lines = [
        ['query_smiles', 'rank', 'smiles', 'id', 'database', 'db_id', 'similarity', ...scores].join(','),
      ];
      results.forEach((r, q) =>
        r.rows.forEach((n, rank) =>
          lines.push(
            [
              smiles[q],
              rank + 1,
              n.smiles,
              n.id,
              n.database,
              n.db_id,
              n.similarity,
              ...scores.map((c) => (n as Record<string, unknown>)[c]),
            ]
              .map(csvCell)
              .join(','),
          ),
        ),
      );
      await deps.objects.putStream(
        userFileKey(accountId, output),
        Readable.from([lines.join('\r\n') + '\r\n']),
        'text/csv; charset=utf-8',
      );
      return {
        input_file: input,
        output_file: output,
        search_type: req.searchType,
        db_names: req.dbNames,
        count: smiles.length,
        // One string like /molsearch's (empty when there is nothing to say).
        remarks: (req.remarks ?? []).join(' '),
        results: results.map((r, q) => ({
          query: smiles[q],
          canonicalized_query: r.canonical,
          neighbors: r.rows,
        })),
      };
    },
  };
}

export type FileService = ReturnType<typeof createFileService>;
