import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { getRDKit } from '../../../engine/chem/index.ts';
import { molblock3d } from '../../../engine/chem/molblock-3d.ts';
import { chem3dPython } from '../../support/chem3d.ts';

// The chem3d worker's own preparation (chem3d/embed.py, Python RDKit) gives the atom order and
// coordinates; the mol block must keep both and add RDKit's bonds.
const SMILES = ['CC(=O)[O-].[Na+]', 'Cl.CN1CCC[C@H]1c1cccnc1', 'OC(=O)c1ccccc1OC(C)=O', 'c1ccc2[nH]ccc2c1'];

function embedded(smiles: string[]): { elements: number[]; coords: number[] }[] {
  const out = execFileSync(
    chem3dPython(),
    [
      '-c',
      `import sys, json
sys.path.insert(0, 'chem3d')
from embed import embed_mol
import numpy as np
res = []
for s in json.loads(sys.argv[1]):
    e = embed_mol(s, confs=1)
    res.append({'elements': list(e.elements), 'coords': np.frombuffer(e.coords, '<f4').tolist()})
print(json.dumps(res))`,
      JSON.stringify(smiles),
    ],
    { encoding: 'utf8' },
  );
  return JSON.parse(out);
}

describe('molblock3d', () => {
  it("writes the 3D worker's atoms and coordinates with RDKit's bonds, largest fragment with hydrogens", async () => {
    const rd = await getRDKit();
    const mols = embedded(SMILES);
    mols.forEach(({ elements, coords }, m) => {
      const mb = molblock3d(rd, SMILES[m], elements, coords);
      const lines = mb.split('\n');
      expect(lines[1]).toContain('3D');
      const n = Number(lines[3].slice(0, 3));
      const bonds = Number(lines[3].slice(3, 6));
      expect(n).toBe(elements.length);
      expect(bonds).toBeGreaterThanOrEqual(n - 1);
      for (let i = 0; i < n; i++) {
        const l = lines[4 + i];
        for (let d = 0; d < 3; d++)
          expect(Number(l.slice(10 * d, 10 * d + 10))).toBeCloseTo(coords[3 * i + d], 4);
      }
      // RDKit reads it back with the same atoms.
      const back = rd.get_mol(mb, JSON.stringify({ removeHs: false }))!;
      expect(JSON.parse(back.get_json()).molecules[0].atoms.length).toBe(n);
      back.delete();
    });
  });

  it('writes the atoms without bonds when the elements do not match the SMILES', async () => {
    const rd = await getRDKit();
    const mb = molblock3d(rd, 'CCO', [6, 6, 7], [0, 0, 0, 1.5, 0, 0, 2, 1, 0]);
    const lines = mb.split('\n');
    expect(lines[3].slice(0, 6)).toBe('  3  0');
    expect(lines[6].slice(31, 34).trim()).toBe('N');
  });
});
