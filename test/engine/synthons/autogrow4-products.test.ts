// The AutoGrow4 × ZINC15 space (catalogs/spaces/sources/zinc15_autogrow4_space.txt.gz) against RDKit
// RunReactants: for sampled synthon pairs of every reaction, Python RDKit ran the reaction SMARTS on
// the two building blocks and zipped the two synthons (test/fixtures/synthons/autogrow4-pairs.json,
// written by scripts/data/make_autogrow4_space.py). Our assembly must give the same product.
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { canonicalize } from '../../../engine/chem/molecule.ts';
import { assembleProduct } from '../../../engine/synthons/assemble.ts';
import { parseSynthonText } from '../../../engine/synthons/parse.ts';
import { groupReactions } from '../../../engine/synthons/reactions.ts';

interface Pair {
  reaction: string;
  synthons: Array<[string, string]>;
  building_blocks: string[];
  run_reactants: string[];
  molzip: string | null;
  verdict: 'equal' | 'equal_without_stereo' | 'invalid' | 'differ';
}

const FIXTURE = JSON.parse(
  readFileSync(new URL('../../fixtures/synthons/autogrow4-pairs.json', import.meta.url), 'utf8'),
) as { dropped_reactions: string[]; pairs: Pair[] };
const SOURCE = new URL('../../../catalogs/spaces/sources/zinc15_autogrow4_space.txt.gz', import.meta.url);

let rd: RDKitModule;
beforeAll(async () => {
  rd = await getRDKit();
});

describe('AutoGrow4 × ZINC15 space', () => {
  const kept = FIXTURE.pairs.filter((p) => !FIXTURE.dropped_reactions.includes(p.reaction));

  it('assembles every checked pair of a kept reaction into RDKit RunReactants product', () => {
    expect(kept.length).toBeGreaterThan(500);
    let sameAsRunReactants = 0;
    for (const p of kept) {
      const ours = assembleProduct(
        rd,
        p.synthons.map(([, smiles]) => smiles),
      );
      expect(ours, `${p.reaction}: ${p.synthons.join(' + ')}`).toBeDefined();
      // Python's molzip of the same synthons, read by MinimalLib: the very same canonical product.
      expect(ours!.smiles).toBe(canonicalize(rd, p.molzip!));
      if (p.verdict === 'equal') {
        const want = new Set(p.run_reactants.map((s) => canonicalize(rd, s)));
        expect(want.has(ours!.smiles), `${p.reaction}: ${ours!.smiles} not in ${[...want]}`).toBe(true);
        sameAsRunReactants++;
      } else {
        // Only the template's E/Z across the join is lost (a synthon cannot carry it).
        expect(p.verdict).toBe('equal_without_stereo');
      }
    }
    expect(sameAsRunReactants / kept.length).toBeGreaterThan(0.95);
  });

  it('leaves out the reactions whose synthons do not zip into RunReactants products', () => {
    const dropped = FIXTURE.pairs.filter((p) => FIXTURE.dropped_reactions.includes(p.reaction));
    for (const p of dropped.filter((d) => d.verdict === 'invalid'))
      expect(
        assembleProduct(
          rd,
          p.synthons.map(([, smiles]) => smiles),
        ),
      ).toBeUndefined();
    const text = gunzipSync(readFileSync(SOURCE)).toString('utf8');
    const parsed = parseSynthonText(text);
    expect(parsed.rejects).toEqual([]);
    const { reactions } = groupReactions(parsed.lines);
    const ids = new Set(reactions.map((r) => r.id));
    for (const r of FIXTURE.dropped_reactions) expect(ids.has(r)).toBe(false);
    for (const p of kept) expect(ids.has(p.reaction)).toBe(true);
    const products = reactions.reduce((n, r) => n + r.slots.reduce((m, s) => m * s.length, 1), 0);
    expect(products).toBeGreaterThanOrEqual(1e9);
  });
});
