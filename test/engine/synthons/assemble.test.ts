// Product assembly against RDKit's own full enumerations of the test spaces (Python RDKit wrote the
// *_enum.smi files; both sides are compared as RDKit canonical SMILES).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { getRDKit, type RDKitModule } from '../../../engine/chem/rdkit.ts';
import { canonicalize } from '../../../engine/chem/molecule.ts';
import { buildSpace } from '../../../engine/synthons/build-space.ts';
import { assembleProduct, decodeProductId, encodeProductId } from '../../../engine/synthons/assemble.ts';
import { zipWouldThrow } from '../../../engine/synthons/zip-valence.ts';
import { productSmiles, tupleKey } from '../../../engine/synthons/score-tuple.ts';
import { enumerateSpace, openSpace, tupleOfId, tupleSmiles } from '../../../engine/synthons/space.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
const FIXTURES = new URL('../../fixtures/synthons/', import.meta.url).pathname;
let root: string;
let rd: RDKitModule;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'space-enum-'));
  rd = await getRDKit();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function expectedSet(file: string): Promise<Set<string>> {
  const raw = await readFile(join(FIXTURES, file));
  const text = (file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const c = canonicalize(rd, line.split(/\s+/)[0]);
    if (!c) throw new Error(`reference SMILES does not parse: ${line}`);
    out.add(c);
  }
  return out;
}

async function enumerated(name: string): Promise<{ smiles: Set<string>; ids: string[]; invalid: number }> {
  const out = join(root, name);
  await buildSpace({ input: join(SOURCES, `${name}.txt`), out, id: name });
  const { products, invalid } = enumerateSpace(rd, await openSpace(out));
  return { smiles: new Set(products.map((p) => p.smiles)), ids: products.map((p) => p.id), invalid };
}

describe('enumeration equals RDKit', () => {
  for (const name of ['amide_space', 'triazole_space', 'urea_space', 'doebner_miller_space'])
    it(`${name}: same canonical product set as ${name}_enum.smi`, async () => {
      const got = await enumerated(name);
      const want = await expectedSet(`${name}_enum.smi`);
      expect(got.invalid).toBe(0);
      expect(got.ids.length).toBe(want.size);
      expect([...got.smiles].sort()).toEqual([...want].sort());
    });

  it(
    'idorsia toy space: all 29,200 products equal idorsia_toy_space_enum.smi',
    { timeout: 400_000 },
    async () => {
      const got = await enumerated('idorsia_toy_space_a');
      const want = await expectedSet('idorsia_toy_space_enum.smi.gz');
      expect(got.invalid).toBe(0);
      expect(got.ids.length).toBe(29200);
      expect(got.smiles.size).toBe(want.size);
      expect([...want].filter((s) => !got.smiles.has(s))).toEqual([]);
    },
  );
});

describe('product ids', () => {
  it('are reaction id plus synthon ids and decode back to the same product', async () => {
    const out = join(root, 'urea-ids');
    await buildSpace({ input: join(SOURCES, 'urea_space.txt'), out, id: 'u' });
    const space = await openSpace(out);
    const id = encodeProductId('urea-3', [
      '277310376-742385846',
      '584456271-623025187',
      '441848376-976230122',
    ]);
    expect(id).toBe('urea-3;277310376-742385846;584456271-623025187;441848376-976230122');
    expect(decodeProductId(id)?.synthonIds).toHaveLength(3);
    const t = tupleOfId(space, id);
    expect(t).toEqual({ reaction: 0, synthons: [0, 0, 0] });
    // The first line of urea_space_enum.smi names exactly these synthons.
    expect(assembleProduct(rd, tupleSmiles(space, t!))?.smiles).toBe(
      canonicalize(rd, 'O=C(NCc1ccsc1NC(=O)c1ccc(OC(F)F)cn1)NC1COC1'),
    );
    expect(tupleOfId(space, 'urea-3;nope;584456271-623025187;441848376-976230122')).toBeUndefined();
    expect(decodeProductId('urea-3')).toBeUndefined();
  });

  it('productSmiles: a tuple is assembled once per cache, the cached SMILES equal to a fresh assembly', async () => {
    const out = join(root, 'urea-cache');
    await buildSpace({ input: join(SOURCES, 'urea_space.txt'), out, id: 'u' });
    const space = await openSpace(out);
    const cache = new Map<string, string | null>();
    const t = { reaction: 0, synthons: [0, 0, 0] };
    const first = productSmiles(rd, space, t, cache);
    expect(first).toBe(canonicalize(rd, 'O=C(NCc1ccsc1NC(=O)c1ccc(OC(F)F)cn1)NC1COC1'));
    expect([...cache.entries()]).toEqual([[tupleKey(t), first]]);
    // A second call reads the cache: a planted value comes back, so RDKit was not asked again.
    cache.set(tupleKey(t), 'planted');
    expect(productSmiles(rd, space, t, cache)).toBe('planted');
    // Without a cache it assembles.
    expect(productSmiles(rd, space, t)).toBe(first);
  });

  it('counts an assembly that does not sanitise as invalid instead of returning it', () => {
    // A pentavalent carbon after the zip.
    expect(assembleProduct(rd, ['C(C)(C)(C)[1*]', 'C(=O)(=O)[1*]'])).toBeUndefined();
    expect(assembleProduct(rd, ['CC[1*]', 'NC[1*]'], true)?.fp?.length).toBe(256);
  });

  it('counts a tuple molzip would throw on as invalid, and thousands of them harm no later assembly', () => {
    // The AutoGrow4 Friedlaender reaction's quinoid synthon ([1*] single) with a [1*]= partner:
    // molzip throws on it, and each exception it threw leaked WebAssembly memory (after 5,784 of
    // them every later assembly in the process failed). Now the text says so before RDKit runs.
    const bad = ['[1*]N=C1C=C(Cl)C=CC1=C[2*]', '[1*]=C(C)C(=[2*])CC(C)=O'];
    const good = ['[1*]=Nc1ccccc1C=[2*]', '[1*]=C(C)C(=[2*])CC(C)=O'];
    expect(zipWouldThrow(rd, bad)).toBe(true);
    expect(zipWouldThrow(rd, good)).toBe(false);
    for (let i = 0; i < 8000; i++) expect(assembleProduct(rd, bad)).toBeUndefined();
    // RDKit's product: 2-methyl-3-(2-oxopropyl)quinoline.
    expect(assembleProduct(rd, good)?.smiles).toBe(canonicalize(rd, 'CC(=O)Cc1cc2ccccc2nc1C'));
  });

  it('tells the tuples molzip raises on as Python RDKit does, on bundled spaces', async () => {
    // scripts/reference/make_zip_valence_fixture.py: AutoGrow4 (the Friedlaender reaction's
    // quinoid synthons, and 40 tuples of every other reaction) and every Doebner-Miller tuple.
    const ref = JSON.parse(await readFile(join(FIXTURES, 'zip-valence-reference.json'), 'utf8')) as {
      entries: Array<[string[], boolean]>;
    };
    expect(ref.entries.filter(([, raises]) => raises).length).toBeGreaterThan(100);
    expect(ref.entries.filter(([, raises]) => !raises).length).toBeGreaterThan(3000);
    for (const [smiles, raises] of ref.entries) {
      expect(zipWouldThrow(rd, smiles), smiles.join(' ')).toBe(raises);
      if (raises) expect(assembleProduct(rd, smiles)).toBeUndefined();
    }
  });
});
