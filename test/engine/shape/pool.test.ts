import { afterAll, describe, expect, it } from 'vitest';
import { describeConformers } from '../../../engine/shape/descriptors.ts';
import { createShapePool } from '../../../engine/shape/pool.ts';
import { descriptorTable, scanShortlist, type DescriptorTable } from '../../../engine/shape/scan.ts';
import { molecules } from './support/fixtures.ts';

const mols = molecules();
const pool = createShapePool({ threads: 2 });
afterAll(() => pool.close());

/** The table's arrays copied into shared memory, as loadShard3d gives them. */
function shared(t: DescriptorTable): DescriptorTable {
  const d = new Float32Array(new SharedArrayBuffer(t.descriptors.byteLength));
  d.set(t.descriptors);
  return { descriptors: d, offsets: t.offsets };
}

describe('scanShortlist on the shape pool', () => {
  it('returns the rows and scores of the serial scan', async () => {
    const table = descriptorTable(mols.map(describeConformers));
    for (const t of [table, shared(table)])
      for (const q of [0, 3, 7]) {
        const query = describeConformers(mols[q]);
        const serial = scanShortlist(query, t, 6);
        const threaded = await pool.scanShortlist(query, t, 6);
        expect(Array.from(threaded.rows)).toEqual(Array.from(serial.rows));
        expect(Array.from(threaded.scores)).toEqual(Array.from(serial.scores));
      }
  });

  it('runs off the event loop: timers keep firing during a long scan', async () => {
    // Many rows (the fixtures repeated) so one scan takes long enough to measure.
    const per = mols.map(describeConformers);
    const table = shared(descriptorTable(Array.from({ length: 40_000 }, (_, i) => per[i % per.length])));
    const query = describeConformers(mols[2]);
    const t0 = performance.now();
    const serial = scanShortlist(query, table, 50);
    const serialMs = performance.now() - t0;

    let ticks = 0;
    let maxGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      ticks++;
    }, 1);
    const threaded = await pool.scanShortlist(query, table, 50);
    clearInterval(timer);
    expect(Array.from(threaded.rows)).toEqual(Array.from(serial.rows));
    expect(serialMs).toBeGreaterThan(20);
    // A scan on this thread would stall the timer for the whole scan.
    expect(ticks).toBeGreaterThan(2);
    expect(maxGap).toBeLessThan(serialMs / 2 + 5);
  });
});
