import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { openSpace } from '../../../engine/synthons/space.ts';
import { FP_BYTES } from '../../../engine/chem/fingerprint.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
const FIXTURES = new URL('../../fixtures/synthons/', import.meta.url).pathname;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'space-build-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('buildSpace', () => {
  it('writes per-slot Arrow columns and a manifest with the counts', async () => {
    const out = join(root, 'urea');
    const { manifest, rejects } = await buildSpace({
      input: join(SOURCES, 'urea_space.txt'),
      out,
      id: 'urea',
    });
    expect(rejects).toEqual([]);
    expect(manifest.counts).toEqual({ reactions: 1, synthons: 7, products: 12, rejected: 0 });
    expect(manifest.reactions[0].slots.map((s) => s.synthons)).toEqual([2, 2, 3]);
    const space = await openSpace(out);
    const slot = space.reactions[0].slots[2];
    expect(slot.synthonIds).toEqual(['441848376-976230122', '487354835-896308859', '689988332-107515102']);
    expect(slot.fps.length).toBe(3 * FP_BYTES);
    expect(slot.guaranteed.length).toBe(3 * FP_BYTES);
    // Guaranteed bits are a subset of the synthon's own bits.
    for (let i = 0; i < slot.fps.length; i++) expect(slot.guaranteed[i] & ~slot.fps[i]).toBe(0);
    expect([...slot.unstableEnvs].every((u) => u > 0)).toBe(true);
  });

  it('rejects chemistry errors line by line into rejects.tsv', async () => {
    const out = join(root, 'err');
    const { manifest, rejects } = await buildSpace({
      input: join(FIXTURES, 'amide_space_error.txt'),
      out,
      id: 'e',
    });
    expect(rejects).toEqual([
      { line: 2, reason: 'connector label repeated (1,1)', text: 'c1cc[1*]ccc1C(=O)[1*]' },
    ]);
    expect(manifest.counts.products).toBe(9);
    const tsv = await readFile(join(out, 'rejects.tsv'), 'utf8');
    expect(tsv.split('\n')[1]).toBe('2\tconnector label repeated (1,1)\tc1cc[1*]ccc1C(=O)[1*]');
  });

  it('rejects a bad SMILES and a connector set that differs from its slot', async () => {
    const input = join(root, 'bad.txt');
    await writeFile(
      input,
      'SMILES\tsynton_id\tsynton#\treaction_id\nCC[1*]\ta\t0\tr\nC1CC[1*]\tb\t0\tr\nNC[1*]\tc\t1\tr\nN[1*]C[2*]\td\t1\tr\n',
    );
    const { manifest, rejects } = await buildSpace({ input, out: join(root, 'bad'), id: 'bad' });
    expect(rejects.map((r) => r.line)).toEqual([3, 5]);
    expect(rejects[0].reason).toMatch(/cannot parse/);
    expect(rejects[1].reason).toMatch(/connectors \[1,2\] differ/);
    expect(manifest.counts.products).toBe(1);
  });

  it('rejects a synthon with a radical atom (the AutoGrow4 file has 2,134 such lines)', async () => {
    // RDKit (Python) gives NumRadicalElectrons 1 for the first, 0 for the others.
    const input = join(root, 'radical.txt');
    await writeFile(
      input,
      'SMILES\tsynton_id\tsynton#\treaction_id\n[1*][C](C)C(F)(F)F\ta\t0\tr\n[1*]C(C)C(F)(F)F\tb\t0\tr\n' +
        'NC[1*]\tc\t1\tr\nC[N+](=O)C[1*]\td\t1\tr\n',
    );
    const { manifest, rejects } = await buildSpace({ input, out: join(root, 'radical'), id: 'radical' });
    expect(rejects).toEqual([
      { line: 2, reason: 'a radical: atom 1 has an unpaired electron', text: '[1*][C](C)C(F)(F)F' },
    ]);
    expect(manifest.counts.products).toBe(2);
  });

  it('resumes: a rerun on the same input reuses the reactions already built', async () => {
    const out = join(root, 'idorsia');
    const input = join(SOURCES, 'idorsia_toy_space_a.txt');
    const first = await buildSpace({ input, out, id: 'idorsia' });
    expect(first.manifest.counts).toMatchObject({ reactions: 6, synthons: 312, products: 29200 });
    expect(first.resumed).toBe(0);
    const before = (await stat(join(out, 'reactions', 'r0-s0.arrow'))).mtimeMs;
    await rm(join(out, 'reactions', 'r5.done'));
    await rm(join(out, 'manifest.json'));
    const second = await buildSpace({ input, out, id: 'idorsia' });
    expect(second.resumed).toBe(5);
    expect(second.manifest.counts).toEqual(first.manifest.counts);
    expect((await stat(join(out, 'reactions', 'r0-s0.arrow'))).mtimeMs).toBe(before);
  });
});
