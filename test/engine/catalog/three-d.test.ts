import { describe, expect, it } from 'vitest';
import { CatalogError } from '../../../engine/catalog/index.ts';
import { readPart3d } from '../../../engine/catalog/three-d-part.ts';
import { molecule3d, readSidecar } from '../../../engine/catalog/three-d-reader.ts';
import {
  encodeSidecar,
  moleculeFromBase64,
  type Embedding3d,
  type Molecule3d,
} from '../../../engine/catalog/three-d-schema.ts';
import { describeConformers } from '../../../engine/shape/index.ts';

const EMBEDDING: Embedding3d = {
  method: 'ETKDGv3',
  confs: 10,
  prune_rms: 0.5,
  seed: 42,
  mmff: false,
  charges: 'gasteiger',
  fragment: 'largest',
  rdkit_version: '2026.09.1',
};
const SHARD = { file: 'shard-00000.arrow', sha256: 'ab'.repeat(32) };

function molecule(atoms: number, confs: number, seed: number): Molecule3d {
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 6 - 3;
  return {
    atomCount: atoms,
    confCount: confs,
    elements: Uint8Array.from({ length: atoms }, (_, i) => (i % 3 === 2 ? 1 : i % 2 ? 8 : 6)),
    charges: Float32Array.from({ length: atoms }, () => rnd() / 10),
    coords: Float32Array.from({ length: atoms * confs * 3 }, rnd),
  };
}

describe('3D sidecars', () => {
  const mols = [molecule(7, 3, 1), null, molecule(12, 1, 2), molecule(5, 10, 3)];
  const bytes = encodeSidecar(mols, EMBEDDING, SHARD);

  it('round-trips every row, a row without 3D model as null, with zero-copy views', () => {
    const s = readSidecar(new Uint8Array(bytes), 0, SHARD);
    expect(s.rows).toBe(4);
    expect(s.embedding).toEqual(EMBEDDING);
    expect(Array.from(s.confCounts)).toEqual([3, 0, 1, 10]);
    mols.forEach((m, r) => {
      const got = molecule3d(s, r);
      if (!m) return expect(got).toBeNull();
      expect(got).toEqual(m);
      const d = s.table.descriptors.subarray(s.table.offsets[r] * 60, s.table.offsets[r + 1] * 60);
      expect(Array.from(d)).toEqual(Array.from(describeConformers(m)));
    });
    expect(Array.from(s.table.offsets)).toEqual([0, 3, 3, 4, 14]);
  });

  it('refuses a sidecar made for another version of its shard', () => {
    expect(() => readSidecar(new Uint8Array(bytes), 0, { ...SHARD, sha256: 'cd'.repeat(32) })).toThrow(
      /made for another shard-00000.arrow/,
    );
  });

  it('rejects arrays that do not match their counts', () => {
    const bad = { ...molecule(4, 2, 5), confCount: 3 };
    expect(() => encodeSidecar([bad], EMBEDDING, SHARD)).toThrow(/do not match/);
    const b64 = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
    const m = molecule(4, 2, 6);
    const wire = { atomCount: 4, confCount: 2, elements: b64(m.elements), charges: b64(m.charges) };
    expect(moleculeFromBase64({ ...wire, coords: b64(m.coords) })).toEqual(m);
    expect(() => moleculeFromBase64({ ...wire, coords: b64(m.coords.subarray(3)) })).toThrow(/do not match/);
  });
});

describe('chem3d part files', () => {
  /** A part file as chem3d/partfile.py writes it. */
  function part(entries: (Molecule3d | string)[]): Uint8Array {
    const header = {
      rows: entries.length,
      rdkit_version: '2026.09.1',
      molecules: entries.map((e) =>
        typeof e === 'string' ? { reason: e } : { atoms: e.atomCount, confs: e.confCount },
      ),
    };
    const ms = entries.filter((e): e is Molecule3d => typeof e !== 'string');
    const el = Buffer.concat(ms.map((m) => Buffer.from(m.elements)));
    const pad = Buffer.alloc(-el.length & 3);
    const f32 = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    return new Uint8Array(
      Buffer.concat([
        Buffer.from('C3DPART1\n' + JSON.stringify(header) + '\n'),
        el,
        pad,
        ...ms.map((m) => f32(m.charges)),
        ...ms.map((m) => f32(m.coords)),
      ]),
    );
  }

  it('reads molecules and reasons in row order', () => {
    const a = molecule(5, 2, 7);
    const b = molecule(6, 1, 8);
    const p = readPart3d(part([a, 'unparsable SMILES', b]), 'p');
    expect(p.rows).toBe(3);
    expect(p.molecules[0]).toEqual(a);
    expect(p.molecules[1]).toBeNull();
    expect(p.reasons[1]).toBe('unparsable SMILES');
    expect(p.molecules[2]).toEqual(b);
  });

  it('refuses a truncated part file', () => {
    const bytes = part([molecule(5, 2, 9)]);
    expect(() => readPart3d(bytes.subarray(0, bytes.length - 4), 'p')).toThrow(CatalogError);
  });
});
