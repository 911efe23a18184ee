/**
 * The slice of the WebAssembly JS API the search uses, typed locally: the project's TypeScript
 * lib (ES2023 + @types/node) does not declare the WebAssembly namespace.
 */

/** A WebAssembly.Memory. Shared memories expose a SharedArrayBuffer. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
}

/** A compiled WebAssembly.Module (opaque; structured-cloneable to workers). */
export interface WasmModule {
  readonly __wasmModule?: never;
}

interface WasmInstance {
  readonly exports: Record<string, unknown>;
}

interface WasmApi {
  Memory: new (d: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: Record<string, Record<string, unknown>>) => WasmInstance;
}

/** globalThis.WebAssembly, typed. */
export const Wasm: WasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
