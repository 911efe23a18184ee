// The substructure screen (sss-screen.ts) and the text-graph matcher (skeleton-match.ts) against
// RDKit's substructure match: on the synthons of the bundled spaces, a fragment the screen rules
// out is never matched by RDKit (the screen is a necessary condition), the text-graph matcher
// answers as RDKit does on every pair, and the search consults the screen (fewer fragment matches,
// same hits).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { graphFromRDKitJson } from '../../../engine/chem/graph.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { decodeSlot, readManifest, SPACE_FORMAT_VERSION } from '../../../engine/synthons/format.ts';
import {
  querySkeleton,
  skeletonQuery,
  skeletonSmarts,
  splitQuery,
} from '../../../engine/synthons/fragments.ts';
import { parseSynthonText } from '../../../engine/synthons/parse.ts';
import { openSpace, type OpenSpace } from '../../../engine/synthons/space.ts';
import { fragmentScreen, screenPasses, SCREEN_BYTES } from '../../../engine/synthons/sss-screen.ts';
import {
  containsSkeleton,
  parseSkeletonSmarts,
  smilesSkeleton,
} from '../../../engine/synthons/skeleton-match.ts';
import { synthonChemistry } from '../../../engine/synthons/synthon-chem.ts';
import { substructureSearch } from '../../../engine/synthons/substructure.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
const TEXT_SPACES = [
  'idorsia_toy_space_a.txt',
  'amide_space.txt',
  'urea_space.txt',
  'triazole_space.txt',
  'doebner_miller_space.txt',
];
let rd: RDKitModule;
let root: string;
let idorsia: OpenSpace;

beforeAll(async () => {
  rd = await getRDKit();
  root = await mkdtemp(join(tmpdir(), 'sss-screen-'));
  const out = join(root, 'idorsia');
  await buildSpace({ input: join(SOURCES, 'idorsia_toy_space_a.txt'), out, id: 'idorsia' });
  idorsia = await openSpace(out);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Synthon SMILES of the bundled spaces (every one of the text spaces, a sample of Chemspace's). */
function bundledSynthons(): string[] {
  const out = new Set<string>();
  for (const f of TEXT_SPACES)
    for (const l of parseSynthonText(readFileSync(SOURCES + f, 'utf8')).lines) out.add(l.smiles);
  const chemspace = parseSynthonText(readFileSync(SOURCES + 'Syntons_5567.csv', 'utf8')).lines;
  chemspace.forEach((l, i) => i % 7 === 0 && out.add(l.smiles));
  return [...out];
}

/**
 * Skeleton fragments cut from synthons: a connected set of 2–8 atoms grown from a random atom,
 * with the bonds among them (a ring bond now and then left out), some atoms written as `*`.
 */
function randomFragments(smiles: string[], n: number, random: () => number): string[] {
  const out: string[] = [];
  while (out.length < n) {
    const m = rd.get_mol(smiles[Math.floor(random() * smiles.length)])!;
    const g = graphFromRDKitJson(m.get_json());
    m.delete();
    const want = 2 + Math.floor(random() * 7);
    const picked = [Math.floor(random() * g.n)];
    while (picked.length < want) {
      const frontier: number[] = [];
      for (const a of picked)
        for (let k = g.adjStart[a]; k < g.adjStart[a + 1]; k++)
          if (!picked.includes(g.adjAtom[k])) frontier.push(g.adjAtom[k]);
      if (!frontier.length) break;
      picked.push(frontier[Math.floor(random() * frontier.length)]);
    }
    const local = new Map(picked.map((a, i) => [a, i]));
    const bonds: Array<[number, number]> = [];
    for (let b = 0; b < g.nb; b++)
      if (local.has(g.bondA[b]) && local.has(g.bondB[b]) && random() > 0.1)
        bonds.push([local.get(g.bondA[b])!, local.get(g.bondB[b])!]);
    const z = picked.map((a) => (random() < 0.1 ? null : g.z[a]));
    out.push(skeletonSmarts(z, bonds));
  }
  return out;
}

/** The fragments the search itself asks for: splits of some queries over the Idorsia reactions. */
function splitFragments(): string[] {
  const out = new Set<string>();
  for (const query of [
    'N1CCOCC1',
    'FC(F)F',
    'c1ccc2ncccc2c1',
    'c1ccncc1',
    'C(=O)N',
    'CC(=O)Nc1ccccc1',
    '[#6]~[#7]~*',
  ]) {
    const q = rd.get_qmol(query)!;
    const sk = querySkeleton(q);
    q.delete();
    for (const r of idorsia.reactions)
      for (const split of splitQuery(sk, r.info) ?? []) for (const f of split) if (f) out.add(f);
  }
  return [...out];
}

describe('synthon substructure screen', () => {
  it('is never stricter than RDKit: every fragment it rules out, RDKit does not match', () => {
    const synthons = bundledSynthons();
    expect(synthons.length).toBeGreaterThan(1000);
    const fragments = [...splitFragments(), ...randomFragments(synthons, 250, rng(5))];
    expect(fragments.length).toBeGreaterThan(280);
    // Synthons as the search parses them (connectors as atom maps), screens as the build computes them.
    const mols = synthons.map((s) => rd.get_mol(s.replace(/\[(\d)\*\]/g, '[*:$1]'))!);
    const screens = new Uint8Array(synthons.length * SCREEN_BYTES);
    synthons.forEach((s, i) => {
      const chem = synthonChemistry(rd, s, false);
      if (typeof chem === 'string') throw new Error(`${s}: ${chem}`);
      screens.set(chem.screen, i * SCREEN_BYTES);
    });
    const graphs = synthons.map(smilesSkeleton);
    expect(graphs.filter((g) => g === undefined).length).toBe(0);
    let ruledOut = 0;
    let matched = 0;
    try {
      for (const f of fragments) {
        const fs = fragmentScreen(f);
        expect(fs, f).toBeDefined();
        const p = skeletonQuery(rd, f);
        const fg = parseSkeletonSmarts(f)!;
        for (let i = 0; i < synthons.length; i++) {
          const passes = screenPasses(screens, i, fs!);
          const hit = (JSON.parse(mols[i].get_substruct_match(p)) as { atoms?: number[] }).atoms?.length;
          expect(containsSkeleton(fg, graphs[i]!), `${f} in ${synthons[i]}`).toBe(Boolean(hit));
          if (hit) {
            matched++;
            expect(passes, `${f} in ${synthons[i]}`).toBe(true);
          } else if (!passes) ruledOut++;
        }
        p.delete();
      }
    } finally {
      mols.forEach((m) => m.delete());
    }
    // Both sides are exercised: many true matches, and most non-matches ruled out.
    expect(matched).toBeGreaterThan(10_000);
    expect(ruledOut).toBeGreaterThan(0.5 * (fragments.length * synthons.length - matched));
  });

  it('reads skeleton SMARTS with rings, branches and components, and gives up on other text', () => {
    const ring = fragmentScreen('[#6]~1~[#6]~[#6]~[#7]~[#6]~[#6]~1~[#0]')!;
    const chain = fragmentScreen('[#6]~[#6]~[#6]~[#7]~[#6]~[#6]~[#0]')!;
    // The ring holds every bit of the chain it contains, and more (its cycle).
    for (let k = 0; k < SCREEN_BYTES; k++) expect(ring[k] & chain[k]).toBe(chain[k]);
    expect(ring).not.toEqual(chain);
    expect(fragmentScreen('[#6]~%10~[#6]~[#6]~%10.[#8]~*(~[#7])~[#0]')).toBeDefined();
    expect(fragmentScreen('[C;R]~N')).toBeUndefined();
    expect(fragmentScreen('[#6]~1~[#6]')).toBeUndefined();
  });

  it('the search consults it: fewer RDKit fragment matches, the same hits', () => {
    const noScreen: OpenSpace = {
      ...idorsia,
      reactions: idorsia.reactions.map((r) => ({
        ...r,
        slots: r.slots.map((s) => ({ ...s, screen: undefined })),
      })),
    };
    const all = { maxHits: 1e6, maxProducts: 1e6 };
    for (const query of ['c1ccncc1', 'FC(F)F']) {
      const withScreen = substructureSearch(rd, idorsia, query, all);
      const without = substructureSearch(rd, noScreen, query, all);
      expect(new Set(withScreen.hits.map((h) => h.productId)), query).toEqual(
        new Set(without.hits.map((h) => h.productId)),
      );
      expect(withScreen.fragmentMatches, query).toBeLessThan(without.fragmentMatches);
    }
  });

  it('is stored per slot by the build (format version 2) and read back', async () => {
    const out = join(root, 'idorsia');
    const manifest = await readManifest(out);
    expect(manifest.formatVersion).toBe(SPACE_FORMAT_VERSION);
    const slot = decodeSlot(await readFile(join(out, manifest.reactions[0].slots[0].file)));
    expect(slot.screen!.length).toBe(slot.smiles.length * SCREEN_BYTES);
    const chem = synthonChemistry(rd, slot.smiles[0], manifest.reactions[0].ringForming);
    expect(typeof chem === 'string' ? chem : chem.screen).toEqual(slot.screen!.subarray(0, SCREEN_BYTES));
  });
});
