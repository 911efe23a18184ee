// Structure slices of synthon jobs (engine/synthons/job-search.ts): the space's screened
// substructure search ranked by Morgan Tanimoto, checked against brute force over RDKit's full
// enumeration of the Idorsia toy space (each product parsed and matched by RDKit here).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { MORGAN_DETAILS, tanimoto } from '../../../engine/chem/fingerprint.ts';
import type { OpenSpace } from '../../../engine/synthons/space.ts';
import { synthonJobSlice, type SynthonJobSlice } from '../../../engine/synthons/job-search.ts';
import { builtSpace } from './support/spaces.ts';

const SOURCE = new URL('../../../catalogs/spaces/sources/idorsia_toy_space_a.txt', import.meta.url).pathname;
const ENUM = new URL('../../fixtures/synthons/idorsia_toy_space_enum.smi.gz', import.meta.url).pathname;
let root: string;
let rd: RDKitModule;
let space: OpenSpace;
let products: Array<{ smiles: string; reaction: string }>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'job-structure-'));
  rd = await getRDKit();
  space = await builtSpace(root, SOURCE, 'idorsia_toy_space', 'idorsia');
  products = gunzipSync(await readFile(ENUM))
    .toString()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [smiles, name] = line.split(/\s+/);
      return { smiles, reaction: name.replace(/(_\d+)+$/, '') };
    });
}, 300_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const slice = (over: Partial<SynthonJobSlice>): SynthonJobSlice => ({
  mode: 'substructure',
  query: 'N1CCOCC1',
  reactions: space.manifest.reactions.map((r) => r.id),
  k: 100_000,
  matchMode: 'fuzzy',
  ...over,
});

const fp = (smiles: string) => {
  const m = rd.get_mol(smiles)!;
  const bits = new Uint8Array(m.get_morgan_fp_as_uint8array(MORGAN_DETAILS) as Uint8Array);
  m.delete();
  return bits;
};

/**
 * Canonical SMILES of the enumerated products containing `query`, with their Tanimoto to it;
 * `text`: a string every matching product's SMILES must contain (a cheap necessary condition).
 */
function bruteForce(query: string, chirality: boolean, text = ''): Map<string, number> {
  const q = rd.get_qmol(query)!;
  const qFp = fp(query);
  const details = JSON.stringify({ useChirality: chirality });
  const out = new Map<string, number>();
  for (const p of products) {
    if (!p.smiles.includes(text)) continue;
    const m = rd.get_mol(p.smiles);
    if (!m?.is_valid()) continue;
    if (JSON.parse(m.get_substruct_match(q, details)).atoms?.length) {
      const smiles = m.get_smiles();
      out.set(smiles, tanimoto(qFp, fp(smiles)));
    }
    m.delete();
  }
  q.delete();
  return out;
}

describe('synthon job structure slices', () => {
  it(
    'substructure: every matching product, scored as RDKit scores it; the best k are the best k',
    { timeout: 300_000 },
    () => {
      const want = bruteForce('N1CCOCC1', false);
      expect(want.size).toBeGreaterThan(100);
      const seen: number[] = [];
      const all = synthonJobSlice(rd, space, slice({}), (f) => seen.push(f));
      expect(all.timedOut).toBe(false);
      expect(all.hitCapReached).toBeUndefined();
      expect(new Map(all.hits.map((h) => [h.smiles, h.similarity]))).toEqual(
        new Map([...want].map(([s, v]) => [s, expect.closeTo(v, 6)])),
      );
      // Progress rises reaction by reaction to 1.
      expect(seen.length).toBe(space.manifest.reactions.length);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(seen.at(-1)).toBe(1);
      const top = synthonJobSlice(rd, space, slice({ k: 20 }));
      const best = [...want.values()].sort((a, b) => b - a).slice(0, 20);
      expect(top.hits.map((h) => h.similarity)).toEqual(best.map((v) => expect.closeTo(v, 6)));
    },
  );

  it('exact match mode matches stereo, fuzzy mode does not', { timeout: 300_000 }, () => {
    // A synthon of the space has this centre; its mirror image is in no product.
    const [r, s] = ['C[C@H](C(C(O)=O)NC=O)F', 'C[C@@H](C(C(O)=O)NC=O)F'];
    const fuzzy = bruteForce(r, false, 'F');
    expect(bruteForce(r, true, 'F').size).toBeGreaterThan(0);
    expect(bruteForce(s, true, 'F').size).toBeLessThan(fuzzy.size);
    for (const [query, exact] of [
      [r, true],
      [s, true],
      [s, false],
    ] as const) {
      const got = synthonJobSlice(rd, space, slice({ query, matchMode: exact ? 'exact' : 'fuzzy' }));
      expect(new Set(got.hits.map((h) => h.smiles)), `${query} ${exact}`).toEqual(
        new Set(bruteForce(query, exact, 'F').keys()),
      );
    }
  });

  it('a query with more hits than the cap: each reaction gives its share, and the slice says the cap was reached', () => {
    const res = synthonJobSlice(rd, space, slice({ query: 'C', maxHits: 60, k: 60 }));
    // Not out of time or products: out of hits it may rank.
    expect(res.hitCapReached).toBe(true);
    expect(res.timedOut).toBe(false);
    const per = new Map<string, number>();
    for (const h of res.hits) per.set(h.reactionId, (per.get(h.reactionId) ?? 0) + 1);
    expect([...per.keys()].sort()).toEqual(space.manifest.reactions.map((r) => r.id).sort());
    for (const n of per.values()) expect(n).toBeLessThanOrEqual(10);
    expect(res.examined).toBeLessThan(200);
  });
});
