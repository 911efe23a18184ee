import { describe, expect, it, beforeAll } from 'vitest';
import initRDKitModule from '@rdkit/rdkit';
import { createSharedMemory, instantiateKernel, type Kernel } from '../../../engine/search/kernel.ts';
import { centroidScoreJs, popcountOf, scoreRangeJs, tanimotoJs } from '../../../engine/search/kernel-js.ts';
import { prepareCentroid } from '../../../engine/search/query.ts';
import { fixture, fixtureFps, randomFps } from './support/shards.ts';

const N = 3000;
let kernel: Kernel;
let mem: Uint8Array;
const FP = 1 << 16;
const PC = FP + N * 256;
const OUT_ROWS = PC + N * 2 + 64;
const OUT_SCORES = OUT_ROWS + N * 4;
const Q = 0;
const W = 1024;

function load(fps: Uint8Array): number {
  const rows = fps.length / 256;
  mem.set(fps, FP);
  const pcs = new Uint16Array(kernel.memory.buffer, PC, rows);
  for (let i = 0; i < rows; i++) pcs[i] = popcountOf(fps, i);
  return rows;
}

beforeAll(() => {
  kernel = instantiateKernel(createSharedMemory(OUT_SCORES + N * 4));
  mem = new Uint8Array(kernel.memory.buffer);
});

describe('wasm Tanimoto kernel', () => {
  it('scoreRange equals the JS reference bit for bit on random fingerprints, including empty ones', () => {
    const fps = randomFps(N, 7);
    fps.fill(0, 5 * 256, 7 * 256);
    const rows = load(fps);
    for (const qi of [0, 5, 11, 2999]) {
      const q = fps.subarray(qi * 256, qi * 256 + 256);
      mem.set(q, Q);
      kernel.scoreRange(Q, FP, PC, 3, rows, popcountOf(q), OUT_SCORES);
      const got = new Float32Array(kernel.memory.buffer, OUT_SCORES, rows - 3);
      expect(Array.from(got)).toEqual(Array.from(scoreRangeJs(q, fps, 3, rows)));
    }
    expect(new Float32Array(kernel.memory.buffer, OUT_SCORES, 4)[2]).toBe(0); // row 5 is empty: RDKit scores 0
  });

  it('scoreAbove returns exactly the rows at or above the threshold, in row order, with their scores', () => {
    const fps = randomFps(N, 8);
    const rows = load(fps);
    const q = fps.slice(42 * 256, 43 * 256);
    mem.set(q, Q);
    const ref = scoreRangeJs(q, fps, 0, rows);
    const min = ref[100];
    const n = kernel.scoreAbove(Q, FP, PC, 11, rows, popcountOf(q), min, OUT_ROWS, OUT_SCORES); // odd count: pairs + tail
    const expected = Array.from({ length: rows }, (_, i) => i).filter((i) => i >= 11 && ref[i] >= min);
    expect(n).toBe(expected.length);
    expect(Array.from(new Int32Array(kernel.memory.buffer, OUT_ROWS, n))).toEqual(expected);
    expect(Array.from(new Float32Array(kernel.memory.buffer, OUT_SCORES, n))).toEqual(
      expected.map((i) => ref[i]),
    );
  });

  it('centroidAbove equals the JS continuous-Tanimoto reference bit for bit', () => {
    const fps = fixtureFps();
    const rows = load(fps);
    const q = prepareCentroid([0, 3, 9].map((i) => fps.slice(i * 256, i * 256 + 256)));
    new Float64Array(kernel.memory.buffer, W, 2048).set(q.weights);
    const n = kernel.centroidAbove(W, q.weightsSq, FP, PC, 0, rows, -Infinity, OUT_ROWS, OUT_SCORES);
    expect(n).toBe(rows);
    const got = Array.from(new Float32Array(kernel.memory.buffer, OUT_SCORES, n));
    expect(got).toEqual(
      Array.from({ length: rows }, (_, i) => centroidScoreJs(q.weights, q.weightsSq, fps, i)),
    );
    expect(Math.max(...got)).toBeLessThan(1);
  });

  it('a single-input centroid scores exactly the binary Tanimoto', () => {
    const fps = fixtureFps();
    const q = prepareCentroid([fps.slice(5 * 256, 6 * 256)]);
    for (let i = 0; i < 300; i += 17)
      expect(centroidScoreJs(q.weights, q.weightsSq, fps, i)).toBe(
        tanimotoJs(fps.subarray(5 * 256, 6 * 256), fps, i),
      );
  });
});

describe('real RDKit fingerprints', () => {
  let fromJs: Uint8Array;
  beforeAll(async () => {
    const RDKit = await (
      initRDKitModule as unknown as () => Promise<{
        get_mol(s: string): { get_morgan_fp_as_uint8array(d: string): Uint8Array; delete(): void } | null;
      }>
    )();
    fromJs = new Uint8Array(60 * 256);
    fixture.molecules.slice(0, 60).forEach((m, i) => {
      const mol = RDKit.get_mol(m.smiles)!;
      fromJs.set(mol.get_morgan_fp_as_uint8array(JSON.stringify({ radius: 2, nBits: 2048 })), i * 256);
      mol.delete();
    });
  });

  it('MinimalLib fingerprints equal the Python RDKit fixture bytes', () => {
    expect(Buffer.from(fromJs).equals(Buffer.from(fixtureFps().subarray(0, 60 * 256)))).toBe(true);
  });

  it('the kernel equals the JS reference on MinimalLib fingerprints', () => {
    const rows = load(fromJs);
    for (let qi = 0; qi < 60; qi += 7) {
      const q = fromJs.subarray(qi * 256, qi * 256 + 256);
      mem.set(q, Q);
      kernel.scoreRange(Q, FP, PC, 0, rows, popcountOf(q), OUT_SCORES);
      expect(Array.from(new Float32Array(kernel.memory.buffer, OUT_SCORES, rows))).toEqual(
        Array.from(scoreRangeJs(q, fromJs, 0, rows)),
      );
    }
  });

  it('kernel Tanimoto equals Python RDKit BulkTanimotoSimilarity (rounded to f32) on the fixture', () => {
    const fps = fixtureFps();
    const rows = load(fps);
    expect(fixture.molecules.map((m) => m.popcount)).toEqual(
      Array.from({ length: rows }, (_, i) => popcountOf(fps, i)),
    );
    for (const q of fixture.queries) {
      const qfp = fps.subarray(q.index * 256, q.index * 256 + 256);
      mem.set(qfp, Q);
      kernel.scoreRange(Q, FP, PC, 0, rows, popcountOf(qfp), OUT_SCORES);
      expect(Array.from(new Float32Array(kernel.memory.buffer, OUT_SCORES, rows))).toEqual(
        q.similarities.map((s) => Math.fround(s)),
      );
    }
  });
});
