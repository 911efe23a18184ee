// Times a property-constrained ranked selection on a built catalog, in-thread (executeSelection over
// openCatalogLibrary: JS brute-force masked k-NN) and through the selection pool (WASM masked scan
// in a worker thread), and the API-thread event-loop delay while each runs.
// Usage: node bench/selection/selection-bench.ts [catalogDir] (default /tmp/ms1/catalogs/zinc15_sample)
import { openCatalog } from '../../engine/catalog/index.ts';
import {
  executeSelection,
  libraryFacts,
  normalizeSelection,
  openCatalogLibrary,
} from '../../engine/selection/index.ts';

const dir = process.argv[2] ?? '/tmp/ms1/catalogs/zinc15_sample';
const catalog = await openCatalog(dir);
const doc = (smiles: string, multiplier: number) => ({
  database: { database_id: catalog.manifest.id },
  strategy: { type: 'ranked' },
  references: [{ id: 'q', structure: { format: 'smiles', value: smiles } }],
  objectives: [
    { type: 'similarity', direction: 'maximize', metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'q' },
  ],
  constraints: {
    properties: [
      { property_id: 'molecular_weight', operator: 'lte', value: 350 },
      { property_id: 'clogp', operator: 'lte', value: 3 },
    ],
    structures: { all: [{ id: 'ring', query: { format: 'smarts', value: 'c1ccccc1' } }] },
  },
  portfolio: { limit: 100 },
  execution: { shortlist_multiplier: multiplier },
});
const QUERIES = ['CC(=O)Oc1ccccc1C(=O)O', 'Cn1c(=O)c2c(ncn2C)n(C)c1=O', 'CC(C)Cc1ccc(cc1)C(C)C(=O)O'];

async function timed(
  label: string,
  run: (
    sel: ReturnType<typeof normalizeSelection>,
  ) => Promise<{ counts: Record<string, number>; timing_ms: Record<string, number> }>,
  facts: Parameters<typeof normalizeSelection>[1],
  multiplier: number,
) {
  const times: number[] = [];
  const phases: string[] = [];
  let last = performance.now();
  let maxGap = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
  }, 2);
  for (const q of QUERIES) {
    const t0 = performance.now();
    const out = await run(normalizeSelection(doc(q, multiplier), facts));
    phases.push(
      `${out.timing_ms.candidate_generation.toFixed(0)}+${out.timing_ms.exact_evaluation.toFixed(0)}ms/${out.counts.exact_evaluated}`,
    );
    await new Promise((r) => setTimeout(r, 10));
    times.push(performance.now() - t0);
  }
  clearInterval(tick);
  const med = [...times].sort((a, b) => a - b)[1];
  console.log(
    `${label} shortlist=${100 * multiplier}: median ${med.toFixed(1)} ms (${times.map((t) => t.toFixed(0)).join(', ')}), max event-loop delay ${maxGap.toFixed(1)} ms; knn+exact ms/evaluated: ${phases.join(' ')}`,
  );
}

let t = performance.now();
const lib = await openCatalogLibrary(catalog);
console.log(`opened ${lib.size} rows in-thread in ${(performance.now() - t).toFixed(0)} ms`);
const facts = libraryFacts(lib);
await executeSelection(lib, normalizeSelection(doc(QUERIES[0], 10), facts)); // warm RDKit
for (const m of [10, 40]) await timed('in-thread', (sel) => executeSelection(lib, sel), facts, m);

const poolModule = await import('../../engine/selection/selection-pool.ts').catch(() => undefined);
if (poolModule) {
  const pool = poolModule.createSelectionPool({ threads: 1 });
  const source = { kind: 'catalog' as const, dir };
  t = performance.now();
  await pool.execute(source, normalizeSelection(doc(QUERIES[0], 10), facts));
  console.log(`pool: first call (thread start + open + RDKit) ${(performance.now() - t).toFixed(0)} ms`);
  for (const m of [10, 40, 100]) await timed('pool', (sel) => pool.execute(source, sel), facts, m);
  await pool.close();
}
