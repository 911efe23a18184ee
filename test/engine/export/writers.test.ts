import { describe, expect, it } from 'vitest';
import ExcelJS from 'exceljs';
import { getRDKit } from '../../../engine/chem/index.ts';
import {
  allocJobResult,
  decodeJobResult,
  encodeJobResult,
  exportStream,
  PROPERTY_KEYS,
  resultView,
  type ExportColumn,
  type ExportValue,
} from '../../../engine/export/index.ts';

const text = async (s: AsyncIterable<Buffer | string>) => {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
};
const cols: ExportColumn[] = [
  { name: 'smiles', type: 'string' },
  { name: 'id', type: 'string' },
  { name: 'similarity', type: 'number' },
  { name: 'in_prop_range', type: 'boolean' },
];
const rows: ExportValue[][] = [
  ['CCO', 'a,"1"', 0.5, true],
  ['c1ccccc1', 'b', NaN, false],
];

describe('export writers', () => {
  it('writes RFC 4180 CSV with quoted cells and empty nulls', async () => {
    expect((await text(exportStream('csv', cols, rows))).toString()).toBe(
      'smiles,id,similarity,in_prop_range\r\nCCO,"a,""1""",0.5,true\r\nc1ccccc1,b,,false\r\n',
    );
  });

  it('writes a JSON array of records with null for missing numbers', async () => {
    expect(JSON.parse((await text(exportStream('json', cols, rows))).toString())).toEqual([
      { smiles: 'CCO', id: 'a,"1"', similarity: 0.5, in_prop_range: true },
      { smiles: 'c1ccccc1', id: 'b', similarity: null, in_prop_range: false },
    ]);
    expect(JSON.parse((await text(exportStream('json', cols, []))).toString())).toEqual([]);
  });

  it('writes XLSX with a header row and typed cells', async () => {
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await text(exportStream('xlsx', cols, rows))) as unknown as ArrayBuffer);
    const ws = wb.worksheets[0];
    expect(ws.getRow(1).values).toEqual([undefined, 'smiles', 'id', 'similarity', 'in_prop_range']);
    expect(ws.getRow(2).getCell(3).value).toBe(0.5);
    expect(ws.getRow(2).getCell(4).value).toBe(true);
    expect(ws.getRow(3).getCell(3).value).toBe(null);
  });

  it('writes SDF records: RDKit mol block titled by id, the other columns as data fields', async () => {
    const rd = await getRDKit();
    const molblock = (s: string) => {
      const m = rd.get_mol(s);
      try {
        return m?.get_molblock();
      } finally {
        m?.delete();
      }
    };
    const sdf = (await text(exportStream('sdf', cols, rows, { molblock }))).toString();
    const recs = sdf.split('$$$$\n');
    expect(recs).toHaveLength(3);
    expect(recs[0].split('\n')[0]).toBe('a,"1"');
    expect(recs[0]).toMatch(/ {2}3 {2}2 {2}0 {2}0 {2}0 {2}0 {2}0 {2}0 {2}0 {2}0999 V2000/);
    expect(recs[0]).toContain('>  <similarity>\n0.5\n\n');
    expect(recs[1]).not.toContain('<similarity>');
  });

  it('keeps memory bounded: 100,000 CSV rows are streamed chunk by chunk, never held whole', async () => {
    let made = 0;
    function* many(): Generator<ExportValue[]> {
      for (let i = 0; i < 100_000; i++) {
        made++;
        yield ['C'.repeat(40), `id${i}`, i / 1e5, true];
      }
    }
    const stream = exportStream('csv', cols, many());
    let first = -1;
    let bytes = 0;
    for await (const c of stream) {
      if (first < 0) first = made;
      bytes += c.length;
    }
    expect(first).toBeLessThan(5_000); // the first chunk leaves before most rows exist
    expect(bytes).toBeGreaterThan(5_000_000);
  });
});

describe('job result file', () => {
  it('round-trips columns with null properties and applies sim_th, distance window and prop ranges on read', () => {
    const r = allocJobResult(4);
    ['a', 'b', 'c', 'd'].forEach((id, i) => {
      r.id[i] = id;
      r.smiles[i] = 'C';
      r.database[i] = 'db';
      r.dbId[i] = id;
      r.similarity[i] = 0.9 - i * 0.2;
    });
    const mw = PROPERTY_KEYS.indexOf('molecular_weight');
    r.props[mw].set([100, 200, 300, 400]);
    const back = decodeJobResult(encodeJobResult(r));
    expect(back.id).toEqual(['a', 'b', 'c', 'd']);
    expect(Array.from(back.props[mw])).toEqual([100, 200, 300, 400]);
    expect(Number.isNaN(back.props[0][0])).toBe(true);
    const base = { simTh: 0, dMin: 0, dMax: 1, propRanges: {} };
    expect(Array.from(resultView(back, { ...base, simTh: 0.5 }).indices)).toEqual([0, 1, 2]);
    expect(Array.from(resultView(back, { ...base, simTh: 0.51 }).indices)).toEqual([0, 1]);
    expect(Array.from(resultView(back, { ...base, dMin: 0.25, dMax: 0.5 }).indices)).toEqual([1, 2]);
    const v = resultView(back, {
      ...base,
      propRanges: { molecular_weight: { min: 150, max: 350 }, caco2_wang: { min: -100000, max: 100000 } },
    });
    expect(Array.from(v.inRange)).toEqual([0, 1, 1, 0]);
    expect(
      Array.from(resultView(back, { ...base, propRanges: { caco2_wang: { min: 0, max: 1 } } }).inRange),
    ).toEqual([0, 0, 0, 0]);
  });
});
