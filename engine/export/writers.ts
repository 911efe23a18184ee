/**
 * Streaming export writers: each turns an iterable of rows (arrays of cells in column order) into
 * a Readable that pulls rows only as fast as its consumer reads, so memory stays bounded by one
 * chunk of rows whatever the row count. No writer ever holds all rows or all output.
 */
import { Readable } from 'node:stream';
import type { ExportColumn, ExportFormat, ExportValue } from './formats.ts';
import { xlsxWriterStream } from './xlsx-writer.ts';

export type RowSource = Iterable<ExportValue[]> | AsyncIterable<ExportValue[]>;

export interface ExportOptions {
  /** SDF only: the V2000 mol block of a SMILES, or undefined when it cannot be parsed. */
  molblock?: (smiles: string) => string | undefined;
  /** SDF only: the mol block of the n-th row (0-based), e.g. a 3D conformer; else `molblock` of its SMILES. */
  molblockAt?: (n: number) => string | undefined;
  /** SDF only: the column holding the SMILES (default 'smiles'). */
  smilesColumn?: string;
  /** SDF only: the column used as the record title (default 'id'). */
  titleColumn?: string;
  /** XLSX only: worksheet name. */
  sheetName?: string;
}

/** Rows per emitted chunk: large enough to amortise stream overhead, small enough to stay bounded. */
const CHUNK_ROWS = 512;

const isMissing = (v: ExportValue): boolean =>
  v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v));

function csvCell(v: ExportValue): string {
  // Numbers and booleans never need quoting: only strings pay for the test.
  if (typeof v === 'number') return Number.isNaN(v) ? '' : '' + v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v === null || v === undefined) return '';
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** Strings JSON.stringify would escape; others are quoted as they are. */
const JSON_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A cell as JSON.stringify writes it, null for missing values (NaN, ±Infinity included). */
function jsonCell(v: ExportValue): string {
  if (typeof v === 'number') return Number.isFinite(v) ? '' + v : 'null';
  if (typeof v === 'string') return JSON_ESCAPE.test(v) ? JSON.stringify(v) : '"' + v + '"';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return 'null';
}

async function* chunked(
  rows: RowSource,
  line: (row: ExportValue[]) => string,
  head: string,
  sep: string,
  tail: string,
): AsyncGenerator<string> {
  let buf: string[] = [];
  let first = true;
  yield head;
  for await (const row of rows) {
    buf.push((first ? '' : sep) + line(row));
    first = false;
    if (buf.length >= CHUNK_ROWS) {
      yield buf.join('');
      buf = [];
    }
  }
  if (buf.length) yield buf.join('');
  yield tail;
}

/** CSV (RFC 4180): a header row, then one line per row; empty cells for nulls. */
export function csvStream(columns: ExportColumn[], rows: RowSource): Readable {
  const header = columns.map((c) => csvCell(c.name)).join(',') + '\r\n';
  const line = (r: ExportValue[]) => {
    let out = r.length ? csvCell(r[0]) : '';
    for (let i = 1; i < r.length; i++) out += ',' + csvCell(r[i]);
    return out + '\r\n';
  };
  return Readable.from(chunked(rows, line, header, '', ''), { objectMode: false });
}

/** JSON: an array of objects keyed by column name (null for missing values). */
export function jsonStream(columns: ExportColumn[], rows: RowSource): Readable {
  const prefixes = columns.map((c, i) => (i ? ',' : '{') + JSON.stringify(c.name) + ':');
  const line = (r: ExportValue[]) => {
    if (!r.length) return '{}';
    let out = '';
    for (let i = 0; i < r.length; i++) out += prefixes[i] + jsonCell(r[i]);
    return out + '}';
  };
  return Readable.from(chunked(rows, line, '[\n', ',\n', '\n]\n'), { objectMode: false });
}

const EMPTY_MOLBLOCK = '\n     RDKit          2D\n\n  0  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n';

/** SDF: the mol block of each row's SMILES (from RDKit), its title line the id, the other columns as data fields. */
export function sdfStream(columns: ExportColumn[], rows: RowSource, opts: ExportOptions): Readable {
  const molblock = opts.molblock;
  if (!molblock) throw new Error('SDF export needs a molblock function');
  const si = columns.findIndex((c) => c.name === (opts.smilesColumn ?? 'smiles'));
  const ti = columns.findIndex((c) => c.name === (opts.titleColumn ?? 'id'));
  if (si < 0) throw new Error('SDF export needs a smiles column');
  let n = 0;
  const line = (r: ExportValue[]) => {
    const mb = opts.molblockAt?.(n++) ?? molblock(String(r[si])) ?? EMPTY_MOLBLOCK;
    const title = ti >= 0 && !isMissing(r[ti]) ? String(r[ti]).replace(/[\r\n]/g, ' ') : '';
    const body = mb.slice(mb.indexOf('\n')); // replace RDKit's (empty) title line by the id
    let out = title + body + (body.endsWith('\n') ? '' : '\n');
    for (let i = 0; i < columns.length; i++) {
      if (isMissing(r[i])) continue;
      out += `>  <${columns[i].name}>\n${String(r[i]).replace(/\r?\n/g, ' ')}\n\n`;
    }
    return out + '$$$$\n';
  };
  return Readable.from(chunked(rows, line, '', '', ''), { objectMode: false });
}

/** XLSX through the streaming writer of xlsx-writer.ts (typed cells under a header row). */
export function xlsxStream(columns: ExportColumn[], rows: RowSource, opts: ExportOptions = {}): Readable {
  return xlsxWriterStream(columns, rows, { sheetName: opts.sheetName });
}

/** The writer of `format`. */
export function exportStream(
  format: ExportFormat,
  columns: ExportColumn[],
  rows: RowSource,
  opts: ExportOptions = {},
): Readable {
  switch (format) {
    case 'csv':
      return csvStream(columns, rows);
    case 'json':
      return jsonStream(columns, rows);
    case 'sdf':
      return sdfStream(columns, rows, opts);
    case 'xlsx':
      return xlsxStream(columns, rows, opts);
  }
}
