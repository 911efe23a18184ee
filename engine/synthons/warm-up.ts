/**
 * Warming a space thread before its first search.
 *
 * A thread's first substructure search pays for V8 compiling our hot loops and for RDKit's
 * WebAssembly tiering up molzip, matching and SMILES writing: on the 10^9 space the first query of
 * a process took 0.29 s where the same query later took 0.09 s (bench/synthons/README.md). The
 * space thread pays that once when it starts, with a search on a small space (at least
 * MIN_PRODUCTS products, so that it verifies a few hundred candidates), which leaves the large
 * spaces' columns undecoded until a user's search needs them.
 */
import type { RDKitModule } from '../chem/rdkit.ts';
import type { OpenSpace } from './space.ts';
import { substructureSearch } from './substructure.ts';

const MIN_PRODUCTS = 1000;
/** Enough verified candidates to tier up RDKit's hot functions; bounded in time as well. */
const WARM_UP = { query: 'CC', maxHits: 300, timeoutMs: 1500 } as const;

/** The space a warm-up searches: the smallest with MIN_PRODUCTS products, else the largest. */
export function warmUpSpace(spaces: OpenSpace[]): OpenSpace | undefined {
  const bySize = [...spaces].sort((a, b) => a.manifest.counts.products - b.manifest.counts.products);
  return bySize.find((s) => s.manifest.counts.products >= MIN_PRODUCTS) ?? bySize.at(-1);
}

/** Runs the warm-up search; returns the space it used and the milliseconds it took. */
export function warmUp(rd: RDKitModule, spaces: OpenSpace[]): { space: string; ms: number } | undefined {
  const space = warmUpSpace(spaces);
  if (!space) return undefined;
  const t0 = performance.now();
  const { query, ...opts } = WARM_UP;
  substructureSearch(rd, space, query, opts);
  return { space: space.manifest.id, ms: Math.round(performance.now() - t0) };
}
