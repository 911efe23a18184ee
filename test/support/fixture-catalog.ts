import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCatalog, openCatalog, type Catalog } from '../../engine/catalog/index.ts';

export interface ReferenceMolecule {
  input: string;
  canonical: string;
  on_bits: number[];
  popcount: number;
  descriptors: Record<string, number>;
  scaffold: string;
}

export interface Reference {
  rdkit_version: string;
  molecules: ReferenceMolecule[];
  tanimoto_pairs: [number, number, number][];
}

/** The committed RDKit (Python) reference values: scripts/reference/make_rdkit_fixture.py. */
export async function loadReference(): Promise<Reference> {
  return JSON.parse(
    await readFile(new URL('../fixtures/rdkit-reference.json', import.meta.url), 'utf8'),
  ) as Reference;
}

/** Python-RDKit Tanimoto from on-bit lists: the reference the engine's scores are checked against. */
export function referenceTanimoto(a: number[], b: number[]): number {
  const set = new Set(a);
  let c = 0;
  for (const x of b) if (set.has(x)) c++;
  const denom = a.length + b.length - c;
  return denom === 0 ? 0 : c / denom;
}

/**
 * Builds a real catalog (RDKit canonicalisation, fingerprints, descriptors, Arrow shards) from the
 * reference molecules, ids REF-<index>, into a temp directory, and opens it.
 */
export async function buildReferenceCatalog(
  opts: {
    id?: string;
    name?: string;
    shardRows?: number;
    take?: (m: ReferenceMolecule, i: number) => boolean;
    license?: string;
    source?: string;
  } = {},
): Promise<{ catalog: Catalog; reference: Reference; dir: string; ids: Map<string, number> }> {
  const reference = await loadReference();
  const dir = await mkdtemp(join(tmpdir(), 'refcat-'));
  const lines = ['smiles\tid'];
  const ids = new Map<string, number>();
  const seen = new Set<string>();
  reference.molecules.forEach((m, i) => {
    if (opts.take && !opts.take(m, i)) return;
    if (seen.has(m.canonical)) return;
    seen.add(m.canonical);
    lines.push(`${m.input}\tREF-${i}`);
    ids.set(`REF-${i}`, i);
  });
  const input = join(dir, 'input.tsv');
  await writeFile(input, lines.join('\n') + '\n');
  const id = opts.id ?? 'refcat';
  const out = join(dir, id);
  await buildCatalog({
    input,
    outDir: out,
    id,
    name: opts.name ?? 'Reference catalog',
    license: opts.license,
    source: opts.source,
    smilesCol: 'smiles',
    idCol: 'id',
    delimiter: '\t',
    threads: 1,
    progress: false,
    shardRows: opts.shardRows ?? 64,
  });
  return { catalog: await openCatalog(out), reference, dir, ids };
}
