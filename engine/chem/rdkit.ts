/**
 * The one place that loads RDKit MinimalLib (WebAssembly). Every thread that needs chemistry calls
 * `getRDKit()`; the module is instantiated once per thread and cached.
 */
import initRDKitModule from '@rdkit/rdkit';
import type { MainModule, Mol } from '@rdkit/rdkit';

export type RDKitModule = MainModule;
export type RDKitMol = Mol;

let modulePromise: Promise<RDKitModule> | undefined;

/** Resolves to this thread's RDKit module (instantiated on first call, then cached). */
export function getRDKit(): Promise<RDKitModule> {
  modulePromise ??= (initRDKitModule as unknown as () => Promise<RDKitModule>)().then((rd) => {
    // RDKit logs parse failures to stderr; callers get them as `{ error }` values instead.
    rd.disable_logging();
    return rd;
  });
  return modulePromise;
}

/** The RDKit version string of the loaded module (e.g. "2026.09.1"), written into catalog metadata. */
export async function rdkitVersion(): Promise<string> {
  return (await getRDKit()).version();
}

/**
 * Runs `fn` with a parsed molecule and always frees its WASM memory. Returns `undefined` when RDKit
 * cannot parse `smiles`. `details` is MinimalLib's JSON parse options.
 */
export function withMol<T>(
  rd: RDKitModule,
  smiles: string,
  fn: (mol: RDKitMol) => T,
  details?: string,
): T | undefined {
  let mol: RDKitMol | null = null;
  try {
    mol = details === undefined ? rd.get_mol(smiles) : rd.get_mol(smiles, details);
    if (!mol || !mol.is_valid()) return undefined;
    return fn(mol);
  } catch {
    return undefined;
  } finally {
    mol?.delete();
  }
}
