import { afterAll, describe, expect, it } from 'vitest';
import { createAnalysisPool } from '../../../engine/analysis/pool.ts';

const pool = createAnalysisPool({ threads: 1 });
afterAll(() => pool.close());

describe('analysis pool start-up', () => {
  it('starts no thread until asked, and start() brings its thread up before any request', async () => {
    expect(pool.threads()).toBe(0);
    await pool.start();
    expect(pool.threads()).toBe(1);
    // The started thread serves: a molecule is its own nearest neighbour (Tanimoto 1).
    const r = await pool.run({ op: 'pair', smiles1: 'CCO', smiles2: 'OCC', searchType: 'morgan' });
    expect(r.similarity).toBe(1);
    expect(pool.threads()).toBe(1);
  });

  it('start() after close() rejects instead of spawning', async () => {
    const other = createAnalysisPool({ threads: 1 });
    await other.close();
    await expect(other.start()).rejects.toThrow();
    expect(other.threads()).toBe(0);
  });
});
