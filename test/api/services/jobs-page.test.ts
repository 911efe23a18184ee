import { describe, expect, it } from 'vitest';
import { allocJobResult, PROPERTY_KEYS, resultView } from '../../../engine/export/index.ts';
import { buildPage, emptyPage, pageJson, type PageRequest } from '../../../api/services/jobs-page.ts';

/** A result with the strings and numbers JSON is fussy about: quotes, backslashes, controls, lone surrogates, NaN, ±Infinity, -0. */
function fussyResult(rows: number) {
  const r = allocJobResult(rows);
  const odd = [
    'plain',
    'q"uote',
    'back\\slash',
    'tab\tnl\n',
    '\u0001ctl',
    'lone\ud800',
    'emoji😀',
    '',
    '\u2028sep',
  ];
  for (let i = 0; i < rows; i++) {
    r.smiles[i] = `C${i % 5 ? '' : odd[i % odd.length]}O`;
    r.id[i] = `id-${i}-${odd[(i * 7) % odd.length]}`;
    r.database[i] = i < rows / 2 ? 'db-a' : 'db"b';
    r.dbId[i] = `${i}`;
    r.similarity[i] = 1 - i / (rows * 1.37);
    for (let k = 0; k < PROPERTY_KEYS.length; k++) {
      const m = (i + k) % 11;
      r.props[k][i] =
        m === 0
          ? NaN
          : m === 1
            ? Infinity
            : m === 2
              ? -0
              : m === 3
                ? Math.fround(0.33)
                : (i * 31 + k) / 7 - 50;
    }
  }
  return r;
}

const base: PageRequest = {
  pageNum: 0,
  pageSize: 40,
  includeProperties: true,
  simTh: 0,
  dMin: 0,
  dMax: 1,
  propRanges: {},
  neighborIds: [],
};

describe('page JSON', () => {
  it('is byte for byte JSON.stringify of the page object, with and without properties, filters and neighbour ids', () => {
    const r = fussyResult(300);
    const reqs: PageRequest[] = [
      base,
      { ...base, pageNum: 3 },
      { ...base, includeProperties: false, pageSize: 1000 },
      { ...base, simTh: 0.5, dMax: 0.4, propRanges: { clogp: { min: 0, max: 10 } }, pageNum: 1 },
      { ...base, neighborIds: ['id-5-tab\tnl\n', 'id-0-plain', 'nope'] },
      { ...base, pageNum: 99 },
    ];
    for (const req of reqs) {
      const view = resultView(r, req);
      const json = pageJson(r, req, view);
      expect(json).toBe(JSON.stringify(buildPage(r, req, view)));
      expect(JSON.parse(json).id.length).toBe(buildPage(r, req, view).id.length);
    }
    expect(JSON.parse(pageJson(r, { ...base, pageNum: 99 }))).toEqual(emptyPage(true));
  });

  it('adds product_id, reaction_id and synthons with includeSynthons (null and [] for catalog rows), byte for byte', () => {
    const cat = fussyResult(50);
    const syn = fussyResult(50);
    syn.synthon = {
      reactionId: syn.id.map((_, i) => `r${i % 3}`),
      synthons: syn.id.map((_, i) =>
        JSON.stringify([
          { slot: 0, synthon_id: `a${i}`, smiles: '[1*]C"' },
          { slot: 1, synthon_id: `b${i}`, smiles: 'N[1*]' },
        ]),
      ),
    };
    for (const r of [cat, syn]) {
      const req = { ...base, includeSynthons: true, pageNum: 1, pageSize: 20 };
      const view = resultView(r, req);
      const json = pageJson(r, req, view);
      expect(json).toBe(JSON.stringify(buildPage(r, req, view)));
      const page = JSON.parse(json);
      expect(page.product_id).toEqual(page.id);
      expect(page.synthons).toHaveLength(20);
      if (r === cat) expect(page.reaction_id.every((x: unknown) => x === null)).toBe(true);
      else expect(page.synthons[0][1].synthon_id).toBe(`b${view.indices[20]}`);
    }
    expect(JSON.parse(pageJson(cat, { ...base, includeSynthons: true, pageNum: 99 }))).toEqual(
      emptyPage(true, true),
    );
  });

  it('pages every row exactly once in result order', () => {
    const r = fussyResult(1000);
    const ids: string[] = [];
    for (let p = 0; p < 10; p++)
      ids.push(...(JSON.parse(pageJson(r, { ...base, pageNum: p, pageSize: 100 })).id as string[]));
    expect(ids).toEqual(r.id);
  });
});
