/** A minimal V2000 SDF reader for the Sutherland test sets: elements, coordinates, properties. */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { ConformerSet } from '../../../../engine/shape/conformers.ts';

const Z: Record<string, number> = {
  H: 1,
  B: 5,
  C: 6,
  N: 7,
  O: 8,
  F: 9,
  Si: 14,
  P: 15,
  S: 16,
  Cl: 17,
  Br: 35,
  I: 53,
};

export interface SdfMolecule {
  name: string;
  set: ConformerSet;
  props: Record<string, string>;
}

export function readSdf(path: URL): SdfMolecule[] {
  const text = gunzipSync(readFileSync(path)).toString('utf8');
  return text
    .split('$$$$')
    .filter((b) => b.trim())
    .map((block) => {
      const lines = block.replace(/^\r?\n/, '').split(/\r?\n/);
      const n = Number(lines[3].slice(0, 3));
      const elements = new Uint8Array(n);
      const coords = new Float32Array(n * 3);
      for (let i = 0; i < n; i++) {
        const l = lines[4 + i];
        for (let d = 0; d < 3; d++) coords[3 * i + d] = Number(l.slice(10 * d, 10 * d + 10));
        const sym = l.slice(31, 34).trim();
        if (!(sym in Z)) throw new Error(`element ${sym} not in the test reader`);
        elements[i] = Z[sym];
      }
      const props: Record<string, string> = {};
      for (let i = 4 + n; i < lines.length; i++) {
        const m = /^>\s+<([^>]+)>/.exec(lines[i]);
        if (m) props[m[1]] = lines[i + 1]?.trim() ?? '';
      }
      const set = { atomCount: n, confCount: 1, elements, charges: new Float32Array(n), coords };
      return { name: lines[0].trim(), set, props };
    });
}
