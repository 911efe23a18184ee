// Preparing a space for similarity (prepare.ts) does the query-independent work a reaction at a
// time, yielding in between, and searches of the prepared space stay exact: the top k equal the
// brute-force top k over RDKit's enumeration of the Idorsia toy space, after the warm query too
// (test/fixtures/synthons/idorsia-topk-reference.json).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit } from '../../../engine/chem/rdkit.ts';
import { prepareReaction, prepareSimilarity, WARM_QUERY } from '../../../engine/synthons/prepare.ts';
import { similarityTopK } from '../../../engine/synthons/similarity-topk.ts';
import { clearRingSides, ringSidesUsed } from '../../../engine/synthons/ring-cross.ts';
import type { OpenSpace } from '../../../engine/synthons/space.ts';
import { builtSpace, IDORSIA_SOURCE, morganOf, SPACE_SOURCES } from './support/spaces.ts';

const FIXTURE = new URL('../../fixtures/synthons/idorsia-topk-reference.json', import.meta.url);
let root: string;
let space: OpenSpace;
let amide: OpenSpace;
let ringed: OpenSpace;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'prepare-'));
  space = await builtSpace(root, IDORSIA_SOURCE, 'idorsia');
  amide = await builtSpace(root, join(SPACE_SOURCES, 'amide_space.txt'), 'amide');
  ringed = await builtSpace(root, join(SPACE_SOURCES, 'doebner_miller_space.txt'), 'dm');
}, 300_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('prepareSimilarity', () => {
  it('yields before each reaction and prepares the join walk of the joinable ones', async () => {
    const log: string[] = [];
    const ms = await prepareSimilarity(space, async () => void log.push('yield'));
    expect(log.length).toBe(space.reactions.length);
    expect(ms).toBeGreaterThanOrEqual(0);
    // The Idorsia reactions have no single-join environments; the amide space's one has.
    expect(space.reactions.some((_, r) => prepareReaction(space, r))).toBe(false);
    expect(prepareReaction(amide, 0)).toBe(true);
  });

  it('then runs its warm query and makes the ring-core sides, yielding between, when given RDKit', async () => {
    const rd = await getRDKit();
    const log: string[] = [];
    clearRingSides();
    await prepareSimilarity(space, async () => void log.push('yield'), rd);
    // A yield per reaction, one before the warm query, at least one per reaction's sides.
    expect(log.length).toBeGreaterThanOrEqual(2 * space.reactions.length + 1);
    // The Doebner-Miller test space's ring-closing reaction has a stored pair table: its sides
    // are made before any query.
    clearRingSides();
    await prepareSimilarity(ringed, async () => {}, rd);
    expect(ringSidesUsed()).toBeGreaterThan(0);
    // The warm query's fragment parses and has bits: the search ran on a real fingerprint.
    expect(morganOf(rd, WARM_QUERY.smiles).some((b) => b !== 0)).toBe(true);
  });

  it('leaves the top k of the prepared space equal to brute force over the enumeration', async () => {
    const rd = await getRDKit();
    await prepareSimilarity(space, async () => {}, rd);
    const fixture = JSON.parse(await readFile(FIXTURE, 'utf8')) as {
      k: number;
      entries: Array<{ query: string; top: Array<[string, number, string]> }>;
    };
    for (const e of fixture.entries) {
      const res = similarityTopK(rd, space, morganOf(rd, e.query), fixture.k);
      const want = e.top.slice(0, fixture.k);
      expect(res.hits.map((h) => Number(h.similarity.toFixed(6)))).toEqual(want.map((x) => x[1]));
      expect(res.hits.map((h) => h.smiles).sort()).toEqual(want.map((x) => x[0]).sort());
    }
  });
});
