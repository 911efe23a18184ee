import { describe, expect, it } from 'vitest';
import { allocJobResult, decodeJobResult, encodeJobResult } from '../../../engine/export/index.ts';
import { buildPage, pageJson, type PageRequest } from '../../../api/services/jobs-page.ts';

function result3d() {
  const r = allocJobResult(3);
  r.smiles = ['CCO', 'CCN', 'CCC'];
  r.id = ['a', 'b', 'c'];
  r.database = ['d', 'd', 'd'];
  r.dbId = [...r.id];
  r.similarity = Float64Array.from([0.9, 0.8, 0.7]);
  r.threeD = {
    shape: Float64Array.from([0.9, 0.8, 0.7]),
    esp: Float64Array.from([0.5, -0.25, 0.125]),
    queryConf: Int32Array.from([0, 3, 1]),
    elements: [Uint8Array.from([6, 6, 8]), Uint8Array.from([6, 6, 7, 1]), Uint8Array.from([6])],
    coords: [
      new Float32Array(9).fill(1.5),
      new Float32Array(12).fill(-2),
      Float32Array.from([0.1, 0.2, 0.3]),
    ],
  };
  return r;
}

const req: PageRequest = {
  pageNum: 0,
  pageSize: 2,
  includeProperties: false,
  neighborIds: [],
  simTh: 0,
  dMin: 0,
  dMax: 1,
  propRanges: {},
};

describe('3D job results', () => {
  it('round-trip their scores, and their aligned conformers only when asked', () => {
    const r = result3d();
    const bytes = encodeJobResult(r);
    const lean = decodeJobResult(bytes);
    expect(Array.from(lean.threeD!.esp)).toEqual([0.5, -0.25, 0.125]);
    expect(Array.from(lean.threeD!.queryConf)).toEqual([0, 3, 1]);
    expect(lean.threeD!.coords).toBeUndefined();
    const full = decodeJobResult(bytes, { conformers: true });
    expect(full.threeD!.elements!.map((e) => Array.from(e))).toEqual(
      r.threeD!.elements!.map((e) => Array.from(e)),
    );
    expect(full.threeD!.coords!.map((c) => Array.from(c))).toEqual(
      r.threeD!.coords!.map((c) => Array.from(c)),
    );
  });

  it('page with Shapesim and Espsim after in_prop_range, the JSON text equal to the page object', () => {
    const r = decodeJobResult(encodeJobResult(result3d()));
    const page = buildPage(r, req);
    expect(Object.keys(page)).toEqual([
      'smiles',
      'id',
      'database',
      'db_id',
      'similarity',
      'in_prop_range',
      'Shapesim',
      'Espsim',
    ]);
    expect(page.Espsim).toEqual([0.5, -0.25]);
    expect(pageJson(r, req)).toBe(JSON.stringify(page));
  });

  it('page Shapesim and Espsim rounded to 5 decimals, as similarity is', () => {
    const r = result3d();
    r.similarity = Float64Array.from([0.123456789, 0.8, 0.7]);
    r.threeD!.shape = Float64Array.from([0.123456789, 0.8, 0.7]);
    r.threeD!.esp = Float64Array.from([-0.987654321, 0.1, 0.2]);
    const back = decodeJobResult(encodeJobResult(r));
    const page = buildPage(back, req);
    expect(page.similarity[0]).toBe(0.12346);
    expect(page.Shapesim[0]).toBe(0.12346);
    expect(page.Espsim[0]).toBe(-0.98765);
    expect(pageJson(back, req)).toBe(JSON.stringify(page));
  });

  it('leave Morgan results and pages as they were', () => {
    const r = result3d();
    delete r.threeD;
    const back = decodeJobResult(encodeJobResult(r));
    expect(back.threeD).toBeUndefined();
    expect(Object.keys(buildPage(back, req))).not.toContain('Shapesim');
  });
});
