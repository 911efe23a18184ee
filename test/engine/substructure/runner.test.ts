import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createSubstructureRunner } from '../../../engine/substructure/index.ts';
import type { Library } from '../../../engine/selection/index.ts';
import { drugsLibrary } from '../../../testkit/drugs-library.ts';

// Reference matches from Python RDKit on the canonical SMILES (scripts/reference/v2_selection_reference.py).
const REF = JSON.parse(
  readFileSync(new URL('../../fixtures/v2/selection-reference.json', import.meta.url), 'utf8'),
) as {
  substructure: Record<string, { count: number; first: { id: string; atoms: number[] }[] }>;
};

let lib: Library;
const runner = createSubstructureRunner();
const smiles = () => Array.from({ length: lib.size }, (_, i) => lib.smiles(i));
beforeAll(async () => {
  lib = await drugsLibrary();
}, 120_000);
afterAll(() => runner.close());

describe('substructure runner', () => {
  for (const [smarts, ref] of Object.entries(REF.substructure)) {
    it(`finds the molecules and atoms RDKit finds for ${smarts}, first scan and indexed rescan alike`, async () => {
      for (let pass = 0; pass < 2; pass++) {
        const r = await runner.scan('drugs', smiles, {
          format: 'smarts',
          query: smarts,
          limit: 5000,
          timeoutMs: 60_000,
        });
        if ('invalidQuery' in r) throw new Error('query rejected');
        expect(r.timedOut).toBe(false);
        expect(r.hits.length).toBe(ref.count);
        expect(r.hits.slice(0, 5).map((h) => ({ id: lib.productId(h.row), atoms: h.atoms }))).toEqual(
          ref.first,
        );
        if (pass === 1) expect(r.prefiltered).toBeGreaterThan(0);
      }
    });
  }

  it('stops at the limit', async () => {
    const r = await runner.scan('drugs', smiles, {
      format: 'smarts',
      query: 'c1ccccc1',
      limit: 3,
      timeoutMs: 60_000,
    });
    expect('hits' in r && r.hits.length).toBe(3);
  });

  it('honours the timeout with partial results', async () => {
    const r = await runner.scan('drugs-cold', smiles, {
      format: 'smarts',
      query: '[#6]~[#6]~[#6]~[#6]~[#6]~[#6]~[#6]~[#8]',
      limit: 5000,
      timeoutMs: 1,
    });
    if ('invalidQuery' in r) throw new Error('query rejected');
    expect(r.timedOut).toBe(true);
    expect(r.scanned).toBeLessThan(lib.size);
  });

  it('reports an unparsable query', async () => {
    expect(
      await runner.scan('drugs', smiles, { format: 'smarts', query: 'C1CC[', limit: 5, timeoutMs: 1000 }),
    ).toEqual({ invalidQuery: true });
  });
});
