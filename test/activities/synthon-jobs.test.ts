import { describe, expect, it } from 'vitest';
import { MAX_SYNTHON_SLICES, sliceReactions } from '../../activities/synthon-jobs.ts';
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
