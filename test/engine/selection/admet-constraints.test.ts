import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog, openCatalog, ADMET_NAMES } from '../../../engine/catalog/index.ts';
import {
  executeSelection,
  libraryFacts,
  normalizeSelection,
  openCatalogLibrary,
  type Library,
} from '../../../engine/selection/index.ts';

// Python reference predictions (models/make_prediction_fixture.py) for the catalog molecules.
const fixture = JSON.parse(
  readFileSync(new URL('../admet/fixtures/predictions-sample.json', import.meta.url), 'utf8'),
) as {
  smiles: string[];
  endpoints: Record<string, { score: number[] }>;
};

let lib: Library;
beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sel-admet-'));
  await writeFile(
    join(dir, 'in.tsv'),
    ['smiles\tid', ...fixture.smiles.map((s, i) => `${s}\tS${i}`)].join('\n') + '\n',
  );
  await buildCatalog({
    input: join(dir, 'in.tsv'),
    outDir: join(dir, 'selcat'),
    id: 'selcat',
    name: 'sel',
    smilesCol: 'smiles',
    idCol: 'id',
    delimiter: '\t',
    threads: 1,
    progress: false,
    admet: true,
  });
  lib = await openCatalogLibrary(await openCatalog(join(dir, 'selcat')));
}, 120_000);

describe('v2 selections over predicted properties', () => {
  it('lists the 22 predicted properties of a catalog built with ADMET', () => {
    expect(lib.info.predicted_property_ids).toEqual([...ADMET_NAMES]);
  });

  it('keeps exactly the molecules whose stored herg prediction passes the constraint', async () => {
    const spec = {
      database: { database_id: 'selcat' },
      strategy: { type: 'ranked' },
      references: [{ id: 'q', structure: { format: 'smiles', value: fixture.smiles[0] } }],
      objectives: [
        { type: 'similarity', direction: 'maximize', metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'q' },
      ],
      constraints: {
        properties: [
          { type: 'property', property_id: 'herg', operator: 'lt', value: 0.5, missing: 'reject' },
        ],
      },
      portfolio: { limit: 500 },
    };
    const out = await executeSelection(lib, normalizeSelection(spec, libraryFacts(lib)));
    const passing = new Set(
      fixture.smiles
        .map((_, i) => i)
        .filter((i) => fixture.endpoints.herg.score[i] < 0.5 - 1e-5)
        .map((i) => `S${i}`),
    );
    const got = new Set(out.results.map((r) => r.product_id));
    for (const id of passing) expect(got.has(id), id).toBe(true);
    for (const id of got) expect(fixture.endpoints.herg.score[Number(id.slice(1))]).toBeLessThan(0.5 + 1e-5);
    expect(got.size).toBeGreaterThan(0);
    expect(got.size).toBeLessThan(lib.size);
  });
});
