import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { crc32, inflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import {
  columnLetters,
  excelText,
  ExportLimitError,
  TRUNCATED_NOTE,
  XLSX_MAX_CELL_CHARS,
  XLSX_MAX_ROWS,
  xlsxWriterStream,
  type ExportColumn,
  type ExportValue,
} from '../../../engine/export/index.ts';

const bytesOf = async (s: AsyncIterable<Buffer | string>) => {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
};

/**
 * An independent ZIP reader (central directory first, as Excel reads): every entry's local header
 * must match, its data must inflate to the recorded size and CRC-32, and descriptors must agree.
 */
function unzipChecked(zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(end).toBe(zip.length - 22);
  const count = zip.readUInt16LE(end + 10);
  let p = zip.readUInt32LE(end + 16);
  expect(p + zip.readUInt32LE(end + 12)).toBe(end);
  const out = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(p)).toBe(0x02014b50);
    const flags = zip.readUInt16LE(p + 8);
    const [crc, csize, usize] = [
      zip.readUInt32LE(p + 16),
      zip.readUInt32LE(p + 20),
      zip.readUInt32LE(p + 24),
    ];
    const nameLen = zip.readUInt16LE(p + 28);
    const name = zip.toString('utf8', p + 46, p + 46 + nameLen);
    const local = zip.readUInt32LE(p + 42);
    expect(zip.readUInt32LE(local)).toBe(0x04034b50);
    expect(zip.toString('utf8', local + 30, local + 30 + zip.readUInt16LE(local + 26))).toBe(name);
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = inflateRawSync(zip.subarray(dataAt, dataAt + csize));
    expect(data.length).toBe(usize);
    expect(crc32(data)).toBe(crc);
    if (flags & 8) {
      expect(zip.readUInt32LE(dataAt + csize)).toBe(0x08074b50);
      expect([
        zip.readUInt32LE(dataAt + csize + 4),
        zip.readUInt32LE(dataAt + csize + 8),
        zip.readUInt32LE(dataAt + csize + 12),
      ]).toEqual([crc, csize, usize]);
    }
    out.set(name, data);
    p += 46 + nameLen;
  }
  return out;
}

const cols: ExportColumn[] = [
  { name: 'smiles', type: 'string' },
  { name: 'id', type: 'string' },
  { name: 'similarity', type: 'number' },
  { name: 'in_prop_range', type: 'boolean' },
  { name: 'clogp', type: 'number' },
];

/** What exceljs reads back for a value the writer was given. */
const expected = (v: ExportValue): ExportValue =>
  v === null || v === '' || (typeof v === 'number' && !Number.isFinite(v)) ? null : v;

describe('streaming XLSX writer', () => {
  it('writes a package exceljs reads back with the header, cell types and values of the input', async () => {
    const rows: ExportValue[][] = [
      ['CC(=O)Oc1ccccc1C(=O)O', 'id<1>&"2"', 0.51234, true, -1.5e-7],
      ['c1ccccc1', ' padded ', NaN, false, null],
      ['C[C@H](N)C(=O)O', 'üñí 中文 😀', 1, true, Infinity],
      ['', 'line\r\nbreak\ttab', 0, false, 12345678901234],
    ];
    const file = await bytesOf(xlsxWriterStream(cols, rows, { sheetName: 'results' }));
    const parts = unzipChecked(file);
    expect([...parts.keys()].sort()).toEqual([
      '[Content_Types].xml',
      '_rels/.rels',
      'xl/_rels/workbook.xml.rels',
      'xl/styles.xml',
      'xl/workbook.xml',
      'xl/worksheets/sheet1.xml',
    ]);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(file as unknown as ArrayBuffer);
    const ws = wb.getWorksheet('results')!;
    expect(ws.getRow(1).values).toEqual([undefined, ...cols.map((c) => c.name)]);
    expect(ws.getRow(1).getCell(1).font?.bold).toBe(true);
    expect(ws.rowCount).toBe(rows.length + 1);
    rows.forEach((row, r) => {
      row.forEach((v, c) =>
        expect(ws.getRow(r + 2).getCell(c + 1).value, `row ${r} col ${c}`).toEqual(expected(v)),
      );
    });
    expect(typeof ws.getRow(2).getCell(3).value).toBe('number');
    expect(typeof ws.getRow(2).getCell(4).value).toBe('boolean');
  });

  it('strips characters XML forbids and cuts cells past 32,767 characters with a note', async () => {
    // the cut falls between the emoji's two UTF-16 halves
    const long = 'C'.repeat(XLSX_MAX_CELL_CHARS - TRUNCATED_NOTE.length - 1) + '😀' + 'tail'.repeat(100);
    const rows: ExportValue[][] = [['a\u0000b\u0007c\u001fd\uFFFFe\uD800f', long, 1, true, 2]];
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await bytesOf(xlsxWriterStream(cols, rows))) as unknown as ArrayBuffer);
    const row = wb.worksheets[0].getRow(2);
    expect(row.getCell(1).value).toBe('abcdef');
    const cut = row.getCell(2).value as string;
    expect(cut.length).toBe(XLSX_MAX_CELL_CHARS - 1);
    expect(cut.endsWith(TRUNCATED_NOTE)).toBe(true);
    expect(cut.startsWith('CCC')).toBe(true);
    expect(cut).not.toContain('\uD83D'); // the emoji's high surrogate is not left half
  });

  it("streams a large sheet in many deflate pieces that exceljs's streaming reader reads row by row", async () => {
    const n = 30_000;
    const rowOf = (i: number): ExportValue[] => [
      `C${'c'.repeat(i % 50)}O`,
      `ID-${i}`,
      i / n,
      i % 3 === 0,
      i % 7 === 0 ? NaN : -i * 0.25,
    ];
    function* source(): Generator<ExportValue[]> {
      for (let i = 0; i < n; i++) yield rowOf(i);
    }
    const file = await bytesOf(xlsxWriterStream(cols, source()));
    expect(unzipChecked(file).get('xl/worksheets/sheet1.xml')!.length).toBeGreaterThan(2 << 20); // several 1M-char pieces
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([file]), {
      worksheets: 'emit',
      sharedStrings: 'ignore',
      styles: 'ignore',
      hyperlinks: 'ignore',
    });
    let seen = 0;
    for await (const ws of reader) {
      for await (const row of ws as AsyncIterable<ExcelJS.Row>) {
        if (row.number === 1) continue;
        const want = rowOf(row.number - 2);
        for (let c = 0; c < cols.length; c++)
          expect(row.getCell(c + 1).value ?? null).toEqual(expected(want[c]));
        seen++;
      }
    }
    expect(seen).toBe(n);
  });

  it('reads rows from an async source', async () => {
    async function* source(): AsyncGenerator<ExportValue[]> {
      yield ['C', 'x', 0.5, false, 1];
    }
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await bytesOf(xlsxWriterStream(cols, source()))) as unknown as ArrayBuffer);
    expect(wb.worksheets[0].getRow(2).values).toEqual([undefined, 'C', 'x', 0.5, false, 1]);
  });

  it('fails the stream with xlsx_too_many_rows past the sheet row limit', async () => {
    function* tooMany(): Generator<ExportValue[]> {
      for (let i = 0; i < XLSX_MAX_ROWS; i++) yield [1];
    }
    const err = await bytesOf(xlsxWriterStream([{ name: 'n', type: 'number' }], tooMany())).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ExportLimitError);
    expect((err as ExportLimitError).code).toBe('xlsx_too_many_rows');
  }, 60_000);

  it('fails with xlsx_too_many_columns past 16,384 columns', async () => {
    const wide = Array.from({ length: 16_385 }, (_, i): ExportColumn => ({ name: `c${i}`, type: 'number' }));
    const err = await bytesOf(xlsxWriterStream(wide, [])).catch((e: unknown) => e);
    expect((err as ExportLimitError).code).toBe('xlsx_too_many_columns');
  });

  it('names columns A … Z, AA …, up to XFD', () => {
    expect([0, 25, 26, 51, 52, 701, 702, 16_383].map(columnLetters)).toEqual([
      'A',
      'Z',
      'AA',
      'AZ',
      'BA',
      'ZZ',
      'AAA',
      'XFD',
    ]);
    expect(excelText('ok')).toBe('ok');
  });
});
