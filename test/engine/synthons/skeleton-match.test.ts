// Reading synthon SMILES text as RDKit's graph (skeleton-match.ts): connector labels and connector
// bond simplicity against RDKit's parse (graph-zip.ts synthonGraph) on every bundled synthon.
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { synthonGraph } from '../../../engine/synthons/graph-zip.ts';
import type { SlotColumns } from '../../../engine/synthons/format.ts';
import { parseSynthonText } from '../../../engine/synthons/parse.ts';
import { smilesConnectors, smilesSkeleton } from '../../../engine/synthons/skeleton-match.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

describe('smilesConnectors', () => {
  it('gives the labels and bond simplicity RDKit parses, for every bundled synthon', () => {
    const smiles = ['[1*]=CC', 'C(=[2*])N', '[1*]c1ccccc1', 'C1CC=1[3*]', '[1*]#N', '[2*]/C=C/[1*]'];
    for (const f of [
      'idorsia_toy_space_a.txt',
      'amide_space.txt',
      'urea_space.txt',
      'triazole_space.txt',
      'doebner_miller_space.txt',
      'Syntons_5567.csv',
    ])
      for (const l of parseSynthonText(readFileSync(SOURCES + f, 'utf8')).lines) smiles.push(l.smiles);
    const slot = { smiles, synthonIds: smiles } as unknown as SlotColumns;
    let read = 0;
    smiles.forEach((s, i) => {
      const text = smilesConnectors(s);
      if (!text) return;
      read++;
      const c = synthonGraph(rd, slot, i)!;
      const labels = Array.from(c.g.z).flatMap((z, a) => (z === 0 ? [c.g.isotope[a]] : []));
      expect(text, s).toEqual({ labels, simple: c.simple });
    });
    expect(read).toBeGreaterThan(0.95 * smiles.length);
    expect(smilesConnectors('[1*]=CC')!.simple).toBe(false);
    expect(smilesConnectors('[2*]/C=C/[1*]')).toEqual({ labels: [2, 1], simple: true });
  });

  it('reads a SMILES text graph only where it equals the graph RDKit parses', () => {
    expect(smilesSkeleton('[1*]C(=O)c1cc[nH]c1Cl')!.z).toEqual([0, 6, 8, 6, 6, 6, 7, 6, 17]);
    expect(smilesSkeleton('C1CC%12CC1.[Na+].O%12')!.adj[2]).toEqual([1, 3, 6]);
    expect(smilesSkeleton('[H]C([2H])Cl')).toBeUndefined(); // H atoms: RDKit keeps some
    expect(smilesSkeleton('C[Xx]')).toBeUndefined();
    expect(smilesSkeleton('C1CC')).toBeUndefined();
  });
});
