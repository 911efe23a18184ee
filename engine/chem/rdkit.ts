/**
 * The one place that loads RDKit MinimalLib (WebAssembly). Every thread that needs chemistry calls
 * `getRDKit()`; the module is instantiated once per thread and cached.
 */
import { readFile } from 'node:fs/promises';
import initRDKitModule from '@rdkit/rdkit';
import type { MainModule, Mol } from '@rdkit/rdkit';
import { registerWasmMemory, type WasmMemoryLike } from '../../platform/memory.ts';

export type RDKitModule = MainModule;
export type RDKitMol = Mol;

let modulePromise: Promise<RDKitModule> | undefined;
let heap: WasmMemoryLike | undefined;

// The slice of the WebAssembly API used here (the project's TypeScript lib does not declare it).
type WasmInstance = { exports: Record<string, unknown> };
const Wasm = (
  globalThis as unknown as {
    WebAssembly: {
      instantiate(bytes: Uint8Array, imports: unknown): Promise<{ instance: WasmInstance }>;
      Memory: abstract new (...a: never[]) => WasmMemoryLike;
    };
  }
).WebAssembly;
type InitOptions = {
  instantiateWasm(imports: unknown, done: (instance: WasmInstance) => void): object;
};

/**
 * Emscripten's documented hook to instantiate the module ourselves: the same binary and imports,
 * but we keep the module's WebAssembly.Memory, so memory probes (engine/threads/memory.ts) and
 * `rdkitHeapBytes()` can show how far RDKit's heap has grown (it never shrinks).
 */
const initOptions: InitOptions = {
  instantiateWasm(imports, done) {
    void readFile(new URL(import.meta.resolve('@rdkit/rdkit/RDKit_minimal.wasm')))
      .then((bytes) => Wasm.instantiate(bytes, imports))
      .then(({ instance }) => {
        heap = Object.values(instance.exports).find((v): v is WasmMemoryLike => v instanceof Wasm.Memory);
        if (heap) registerWasmMemory('rdkit', heap);
        done(instance);
      })
      // Emscripten waits for done() forever: a failure must surface (the thread dies, its pool reports it).
      .catch((err: unknown) =>
        queueMicrotask(() => {
          throw err;
        }),
      );
    return {};
  },
};

const WasmTrap = (globalThis as unknown as { WebAssembly: { RuntimeError: new () => Error } }).WebAssembly
  .RuntimeError;

/** A WebAssembly trap (RDKit's heap may be corrupted): never an invalid input to swallow. */
export function isWasmTrap(err: unknown): boolean {
  return err instanceof WasmTrap;
}

/** Bytes of this thread's RDKit WebAssembly heap (0 before the module is loaded). */
export function rdkitHeapBytes(): number {
  return heap?.buffer.byteLength ?? 0;
}

/**
 * Most atoms a SMILES or SMARTS given to RDKit may have. MinimalLib's WebAssembly stack is fixed:
 * a chain of 900 carbons overflows it in the parse, and 600 in the descriptors or the depiction
 * (2026-11-29, RDKit 2026.09.1). The overflow is a trap ("memory access out of bounds") that
 * corrupts the module's heap, after which every RDKit call of that thread fails: one such query
 * broke every later synthon job until a restart (user trial). A 500-carbon chain passes every
 * step (test/engine/chem/rdkit-guard.test.ts; the descriptor fixture holds one); the largest
 * bundled molecule has 96 atoms.
 */
export const MAX_STRUCTURE_ATOMS = 500;

const ATOM_TOKEN = /\[[^\]]*\]|Br|Cl|[BCNOPSFIAa*]|[bcnops]/g;

/** Atoms written in a SMILES or SMARTS (a bracket atom counts once). */
export function atomTokens(text: string): number {
  return text.match(ATOM_TOKEN)?.length ?? 0;
}

/** A SMILES/SMARTS (not a mol block or JSON) with more atoms than RDKit's stack can take. */
export function tooManyAtoms(text: unknown): boolean {
  return (
    typeof text === 'string' &&
    text.length > MAX_STRUCTURE_ATOMS &&
    !text.includes('\n') &&
    !text.trimStart().startsWith('{') &&
    atomTokens(text) > MAX_STRUCTURE_ATOMS
  );
}

/**
 * Every parse of text goes through this guard, so no caller can hand RDKit a structure that
 * overflows its stack: too large a one reads as unparsable (null), as MinimalLib answers for
 * invalid input. Callers that explain their 422s check `tooManyAtoms` first (molecule.ts).
 */
function guardParses(rd: RDKitModule): RDKitModule {
  for (const name of ['get_mol', 'get_qmol'] as const) {
    const original = rd[name] as ((...a: unknown[]) => unknown) & { overloadTable?: unknown };
    const guarded = Object.assign(
      (...args: unknown[]) => (tooManyAtoms(args[0]) ? null : original.apply(rd, args)),
      // Embind's dispatcher of an overloaded function finds its overloads on the module's
      // property it was installed as, which is now this wrapper.
      original.overloadTable ? { overloadTable: original.overloadTable } : {},
    );
    (rd as unknown as Record<string, unknown>)[name] = guarded;
  }
  return rd;
}

/** Resolves to this thread's RDKit module (instantiated on first call, then cached). */
export function getRDKit(): Promise<RDKitModule> {
  modulePromise ??= (initRDKitModule as unknown as (o: InitOptions) => Promise<RDKitModule>)(
    initOptions,
  ).then((rd) => {
    // RDKit logs parse failures to stderr; callers get them as `{ error }` values instead.
    rd.disable_logging();
    return guardParses(rd);
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
