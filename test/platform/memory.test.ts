import { describe, expect, it } from 'vitest';
import { isolateMemory, registerWasmMemory } from '../../platform/memory.ts';
import { getRDKit, rdkitHeapBytes } from '../../engine/chem/rdkit.ts';

describe('memory accounting', () => {
  it('reports RDKit’s WASM heap, which grows with molecules that are not deleted and never shrinks', async () => {
    const rd = await getRDKit();
    const before = rdkitHeapBytes();
    expect(isolateMemory().wasm.rdkit).toBe(before);
    expect(before).toBeGreaterThan(0);
    const mols = Array.from({ length: 1500 }, (_, i) => rd.get_mol(`c1ccccc1${'C'.repeat(i % 20)}OC(=O)N`)!);
    const grown = rdkitHeapBytes();
    expect(grown).toBeGreaterThan(before);
    for (const m of mols) m.delete();
    expect(rdkitHeapBytes()).toBe(grown);
  });

  it('reports heaps of this isolate and forgets a WASM memory whose module was closed', () => {
    let closed = false;
    registerWasmMemory('test', {
      get buffer() {
        if (closed) throw new Error('module closed');
        return new ArrayBuffer(65536);
      },
    });
    const m = isolateMemory();
    expect(m.heapUsed).toBeGreaterThan(0);
    expect(m.wasm.test).toBe(65536);
    closed = true;
    expect(isolateMemory().wasm.test).toBeUndefined();
  });
});
