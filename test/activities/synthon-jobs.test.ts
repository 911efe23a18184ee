import { describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_SYNTHON_SLICES, mergeSynthonParts, sliceReactions } from '../../activities/synthon-jobs.ts';
import { createLocalObjectStore } from '../../platform/object-store/local.ts';
import type { SpaceHit } from '../../engine/synthons/similarity.ts';
import type { SpaceManifest } from '../../engine/synthons/format.ts';

const manifest = (products: number[]) =>
  ({
    reactions: products.map((p, i) => ({ id: `r${i}`, products: p, ringForming: false, slots: [] })),
  }) as unknown as SpaceManifest;

describe('sliceReactions', () => {
  it('puts every reaction in exactly one slice, at most 16 slices, largest reactions apart', () => {
    const sizes = Array.from({ length: 79 }, (_, i) => ((i * 7919) % 1000) * 1000 + 1);
    const slices = sliceReactions(manifest(sizes));
    expect(slices.length).toBe(MAX_SYNTHON_SLICES);
    expect(slices.flat().sort()).toEqual(sizes.map((_, i) => `r${i}`).sort());
    // Greedy largest-first: no slice exceeds the mean by more than the largest reaction.
    const load = slices.map((s) => s.reduce((n, id) => n + sizes[Number(id.slice(1))], 0));
    const mean = sizes.reduce((a, b) => a + b, 0) / slices.length;
    expect(Math.max(...load)).toBeLessThanOrEqual(mean + Math.max(...sizes));
  });

  it('gives each reaction its own slice when there are few', () => {
    expect(sliceReactions(manifest([400, 8000, 800])).map((s) => s.length)).toEqual([1, 1, 1]);
    expect(sliceReactions(manifest([400, 8000, 800]))[0]).toEqual(['r1']);
  });
});

describe('mergeSynthonParts', () => {
  it('keeps one row per molecule across parts (its best score, then smallest product id), k rows', async () => {
    const root = await mkdtemp(join(tmpdir(), 'synthon-merge-'));
    try {
      const store = createLocalObjectStore(root);
      const hit = (productId: string, smiles: string, similarity: number): SpaceHit => ({
        productId,
        smiles,
        similarity,
        reactionId: productId.split(';')[0],
        synthons: [],
      });
      // The same molecule from two reactions in two slices, one of them at a lower score too.
      const parts = [
        [hit('b;1;2', 'CCO', 0.9), hit('b;3;4', 'CCN', 0.5)],
        [hit('a;1;2', 'CCO', 0.9), hit('a;5;6', 'CCC', 0.7), hit('a;7;8', 'CCN', 0.4)],
      ];
      const keys = await Promise.all(
        parts.map(async (hits, i) => {
          const key = `jobs/j/parts/synthon-${i}.json`;
          const part = { hits, examined: 3, invalid: 0, prefiltered: 0, timedOut: false };
          await store.put(key, new TextEncoder().encode(JSON.stringify(part)), 'application/json');
          return key;
        }),
      );
      const { kept } = await mergeSynthonParts(store, keys, 3);
      expect(kept.map((h) => [h.productId, h.smiles, h.similarity])).toEqual([
        ['a;1;2', 'CCO', 0.9],
        ['a;5;6', 'CCC', 0.7],
        ['b;3;4', 'CCN', 0.5],
      ]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
