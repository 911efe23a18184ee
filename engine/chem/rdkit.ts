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

/** Bytes of this thread's RDKit WebAssembly heap (0 before the module is loaded). */
export function rdkitHeapBytes(): number {
  return heap?.buffer.byteLength ?? 0;
}

/** Resolves to this thread's RDKit module (instantiated on first call, then cached). */
export function getRDKit(): Promise<RDKitModule> {
  modulePromise ??= (initRDKitModule as unknown as (o: InitOptions) => Promise<RDKitModule>)(
    initOptions,
  ).then((rd) => {
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
