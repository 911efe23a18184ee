import { afterAll, describe, expect, it } from 'vitest';
import { describeConformers } from '../../../engine/shape/descriptors.ts';
import { createShapePool } from '../../../engine/shape/pool.ts';
import { descriptorTable, scanShortlist, type DescriptorTable } from '../../../engine/shape/scan.ts';
import { molecules } from './support/fixtures.ts';
import { prepareShape } from '../../../engine/shape/frame.ts';
import {
  chargeGridDescriptors,
  gridDescriptors,
  gridScan,
  GRID_LENGTH,
} from '../../../engine/shape/gaussian-grid.ts';
import { gridConformers, type ShardConformers } from '../../../engine/shape/grid-tables.ts';
import { poseChargeScan } from '../../../engine/shape/pose-grid.ts';
import { espPrescreenScan } from '../../../engine/shape/esp-prescreen.ts';

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

describe('grid tables and grid scans on the shape pool', () => {
  // The fixture molecules as one shard's flat columns, one row without a 3D model in the middle.
  const rows = [...mols.slice(0, 4), null, ...mols.slice(4)];
  const shard: ShardConformers = {
    rows: rows.length,
    confCounts: Uint8Array.from(rows, (m) => m?.confCount ?? 0),
    atomCounts: Uint16Array.from(rows, (m) => m?.atomCount ?? 0),
    atomOffsets: Int32Array.from([
      0,
      ...rows.map((_, i) => rows.slice(0, i + 1).reduce((n, m) => n + (m?.atomCount ?? 0), 0)),
    ]),
    coordOffsets: Int32Array.from([
      0,
      ...rows.map((_, i) => rows.slice(0, i + 1).reduce((n, m) => n + (m?.coords.length ?? 0), 0)),
    ]),
    elements: Uint8Array.from(rows.flatMap((m) => (m ? Array.from(m.elements) : []))),
    charges: Float32Array.from(rows.flatMap((m) => (m ? Array.from(m.charges) : []))),
    coords: Float32Array.from(rows.flatMap((m) => (m ? Array.from(m.coords) : []))),
  };

  it('builds the same tables as per-molecule grid descriptors, in shared memory, none for a row without 3D', async () => {
    const t = await pool.gridTables(shard);
    expect(t.shape.descriptors.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(t.shape.offsets[5] - t.shape.offsets[4]).toBe(0);
    const expectShape = descriptorTable(
      rows.filter((m) => m !== null).map((m) => gridDescriptors(prepareShape(m))),
      GRID_LENGTH,
    );
    const expectCharge = descriptorTable(
      rows.filter((m) => m !== null).map((m) => chargeGridDescriptors(prepareShape(m))),
      GRID_LENGTH,
    );
    expect(Array.from(t.shape.descriptors)).toEqual(Array.from(expectShape.descriptors));
    expect(Array.from(t.charge.descriptors)).toEqual(Array.from(expectCharge.descriptors));
    expect(gridConformers(shard)).toBe(t.shape.offsets[rows.length]);
  });

  it('scans a grid table with the rows and scores of the serial gridScan; the query itself first', async () => {
    const t = await pool.gridTables(shard);
    for (const [table, metric, fn] of [
      [t.shape, 'tanimoto', gridDescriptors],
      [t.charge, 'cosine', chargeGridDescriptors],
    ] as const) {
      const query = fn(prepareShape(mols[2]));
      const serial = gridScan(query, table, 5, metric);
      const threaded = await pool.scanGrid(query, table, 5, metric);
      expect(Array.from(threaded.rows)).toEqual(Array.from(serial.rows));
      expect(Array.from(threaded.scores)).toEqual(Array.from(serial.scores));
      expect(threaded.rows[0]).toBe(2);
    }
  });

  it('scans the pose-aware charge grid with the rows and scores of the serial poseChargeScan', async () => {
    const t = await pool.gridTables(shard);
    const p = prepareShape(mols[2]);
    const serial = poseChargeScan(gridDescriptors(p), chargeGridDescriptors(p), t, 5);
    const threaded = await pool.scanPoseCharge(gridDescriptors(p), chargeGridDescriptors(p), t, 5);
    expect(Array.from(threaded.rows)).toEqual(Array.from(serial.rows));
    expect(Array.from(threaded.scores)).toEqual(Array.from(serial.scores));
    expect(threaded.rows[0]).toBe(2);
  });

  it('runs the ESP pre-stage with the rows and scores of the serial espPrescreenScan; the query itself first', async () => {
    const t = await pool.gridTables(shard);
    const serial = espPrescreenScan(mols[6], t, shard, 4, 8);
    const threaded = await pool.scanEspPrescreen(mols[6], t, shard, 4, 8);
    expect(Array.from(threaded.rows)).toEqual(Array.from(serial.rows));
    expect(Array.from(threaded.scores)).toEqual(Array.from(serial.scores));
    // Row 4 is the row without a 3D model: the fixture's molecule 6 is row 7.
    expect(threaded.rows[0]).toBe(7);
    expect(threaded.scores[0]).toBeCloseTo(1, 4);
  });
});
