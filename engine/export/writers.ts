/**
 * Streaming export writers: each turns an iterable of rows (arrays of cells in column order) into
 * a Readable that pulls rows only as fast as its consumer reads, so memory stays bounded by one
 * chunk of rows whatever the row count. No writer ever holds all rows or all output.
 */
import { PassThrough, Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { ExportColumn, ExportFormat, ExportValue } from './formats.ts';

export type RowSource = Iterable<ExportValue[]> | AsyncIterable<ExportValue[]>;

export interface ExportOptions {
  /** SDF only: the V2000 mol block of a SMILES, or undefined when it cannot be parsed. */
  molblock?: (smiles: string) => string | undefined;
  /** SDF only: the column holding the SMILES (default 'smiles'). */
  smilesColumn?: string;
  /** SDF only: the column used as the record title (default 'id'). */
  titleColumn?: string;
  /** XLSX only: worksheet name. */
  sheetName?: string;
}

/** Rows per emitted chunk: large enough to amortise stream overhead, small enough to stay bounded. */
const CHUNK_ROWS = 512;

const isMissing = (v: ExportValue): boolean => v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v));

function csvCell(v: ExportValue): string {
  if (isMissing(v)) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

async function* chunked(rows: RowSource, line: (row: ExportValue[]) => string, head: string, sep: string, tail: string): AsyncGenerator<string> {
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
  return Readable.from(chunked(rows, (r) => r.map(csvCell).join(',') + '\r\n', header, '', ''), { objectMode: false });
}

/** JSON: an array of objects keyed by column name (null for missing values). */
export function jsonStream(columns: ExportColumn[], rows: RowSource): Readable {
  const keys = columns.map((c) => JSON.stringify(c.name));
  const line = (r: ExportValue[]) => '{' + r.map((v, i) => `${keys[i]}:${isMissing(v) ? 'null' : JSON.stringify(v)}`).join(',') + '}';
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
  const line = (r: ExportValue[]) => {
    const mb = molblock(String(r[si])) ?? EMPTY_MOLBLOCK;
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

/**
 * XLSX through exceljs's streaming WorkbookWriter: a header row, then typed cells (numbers as
 * numbers, booleans as booleans). Rows are committed as written; production pauses while the
 * output stream's buffer is full, so memory stays bounded.
 */
export function xlsxStream(columns: ExportColumn[], rows: RowSource, opts: ExportOptions = {}): Readable {
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet(opts.sheetName ?? 'results');
  // The zip stream is piped into `out`; when the consumer stops reading, `out` fills up and we wait,
  // so rows are not produced faster than the upload takes them.
  const backlog = async () => {
    while (out.readableLength >= out.readableHighWaterMark && !out.destroyed) await new Promise((r) => setTimeout(r, 2));
  };
  (async () => {
    sheet.addRow(columns.map((c) => c.name)).commit();
    let n = 0;
    for await (const row of rows) {
      sheet.addRow(row.map((v) => (isMissing(v) ? null : v))).commit();
      if (++n % CHUNK_ROWS === 0) await backlog();
      if (out.destroyed) return;
    }
    sheet.commit();
    await workbook.commit();
  })().catch((err: unknown) => out.destroy(err as Error));
  return out;
}

/** The writer of `format`. */
export function exportStream(format: ExportFormat, columns: ExportColumn[], rows: RowSource, opts: ExportOptions = {}): Readable {
  switch (format) {
    case 'csv': return csvStream(columns, rows);
    case 'json': return jsonStream(columns, rows);
    case 'sdf': return sdfStream(columns, rows, opts);
    case 'xlsx': return xlsxStream(columns, rows, opts);
  }
}
