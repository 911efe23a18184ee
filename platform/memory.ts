/**
 * Memory accounting for issue 15 (a soak's RSS must be explained, not guessed): every thread
 * reports what its isolate holds (V8 heap, external memory, array buffers) and the size of each
 * WebAssembly memory it owns (RDKit's module: a WASM memory only grows, so a JSMol that is never
 * `.delete()`d shows up here as a heap that keeps growing). Modules that instantiate WebAssembly
 * register their memory with `registerWasmMemory`; the pool asks its threads with a probe message.
 */
import { memoryUsage } from 'node:process';

export interface IsolateMemory {
  /** V8 heap in use by this isolate. */
  heapUsed: number;
  heapTotal: number;
  /** C++ objects bound to JS objects of this isolate (includes array buffers). */
  external: number;
  arrayBuffers: number;
  /** Byte length of each registered WebAssembly memory, by name ("rdkit"). */
  wasm: Record<string, number>;
}

/** A WebAssembly.Memory (the project's TypeScript lib does not declare the namespace). */
export interface WasmMemoryLike {
  readonly buffer: ArrayBufferLike;
}

const wasmMemories = new Map<string, WasmMemoryLike>();

/** Makes a WebAssembly memory of this thread visible to memory probes (one per name). */
export function registerWasmMemory(name: string, memory: WasmMemoryLike): void {
  wasmMemories.set(name, memory);
}

/** What this thread's isolate holds now. */
export function isolateMemory(): IsolateMemory {
  const m = memoryUsage();
  const wasm: Record<string, number> = {};
  for (const [name, mem] of wasmMemories) {
    try {
      wasm[name] = mem.buffer.byteLength;
    } catch {
      wasmMemories.delete(name); // its module was closed (a PGlite database after close())
    }
  }
  return {
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    wasm,
  };
}
