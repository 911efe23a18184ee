import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ADMET_NAMES,
  buildCatalog,
  openCatalog,
  readShard,
  rowRecord,
  sha256Hex,
  type CatalogManifest,
} from '../../../../engine/catalog/index.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../../../fixtures/rdkit-reference.json', import.meta.url), 'utf8'),
) as {
  molecules: { input: string; canonical: string; popcount: number }[];
};

// The fixture itself holds a few inputs that are the same molecule; they count as duplicates too.
const uniqueCanonical = new Set(fixture.molecules.map((m) => m.canonical)).size;
const fixtureDuplicates = fixture.molecules.length - uniqueCanonical;

let root: string;
let tsv: string;
const duplicateIds: string[] = [];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cat-build-'));
  const lines = ['smiles\tid'];
  fixture.molecules.forEach((m, i) => lines.push(`${m.input}\tM${i}`));
  // duplicates: the same input again, and a non-canonical spelling of molecule 0 (benzene ring order)
  lines.push(`${fixture.molecules[5].input}\tDUP1`);
  lines.push(`${fixture.molecules[0].canonical}\tDUP2`);
  duplicateIds.push('DUP1', 'DUP2');
  lines.push('C1CC\tBAD1', '\tBAD2', 'CCO\t');
  tsv = join(root, 'input.tsv');
  await writeFile(tsv, lines.join('\n') + '\n');
  await writeFile(join(root, 'input.tsv.gz'), gzipSync(await readFile(tsv)));
});

const common = {
  id: 'test',
  name: 'Test',
  smilesCol: 'smiles',
  idCol: 'id',
  threads: 2,
  chunkRows: 50,
  shardRows: 64,
  progress: false,
};

async function shardHashes(dir: string): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.startsWith('shard-')).sort();
  return Promise.all(files.map(async (f) => sha256Hex(await readFile(join(dir, f)))));
}

describe('buildCatalog', () => {
  let manifest: CatalogManifest;
  let dir: string;
  beforeAll(async () => {
    dir = join(root, 'plain');
    manifest = (await buildCatalog({ ...common, input: tsv, outDir: dir })).manifest;
  });

  it('counts input rows, molecules, rejects and duplicates', () => {
    const n = fixture.molecules.length;
    expect(manifest.counts).toEqual({
      input_rows: n + 5,
      molecules: uniqueCanonical,
      rejected: 5 + fixtureDuplicates,
      duplicates: 2 + fixtureDuplicates,
    });
    expect(manifest.models).toBeNull();
  });

  it('writes every rejected row with its line number and reason', async () => {
    const rows = (await readFile(join(dir, 'rejects.tsv'), 'utf8'))
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split('\t'));
    const n = fixture.molecules.length;
    expect(rows.filter((r) => Number(r[0]) > n + 1).map((r) => [Number(r[0]), r[2]])).toEqual([
      [n + 2, 'duplicate of M5'],
      [n + 3, 'duplicate of M0'],
      [n + 4, 'unparsable SMILES'],
      [n + 5, 'empty SMILES'],
      [n + 6, 'missing id'],
    ]);
    expect(rows.find((r) => Number(r[0]) === n + 2)![1]).toContain('DUP1');
    expect(rows.filter((r) => r[2].startsWith('duplicate of')).length).toBe(2 + fixtureDuplicates);
  });

  it('sorts rows by popcount across shards, with consecutive popcount ranges and valid checksums', async () => {
    const catalog = await openCatalog(dir);
    expect(catalog.manifest.shards.length).toBe(Math.ceil(uniqueCanonical / 64));
    let prev: [number, string] = [-1, ''];
    const seen = new Set<string>();
    for (const [i, info] of catalog.manifest.shards.entries()) {
      const bytes = await readFile(catalog.shardPath(i));
      expect(sha256Hex(bytes)).toBe(info.sha256);
      const shard = readShard(bytes, i);
      expect(shard.rows).toBe(info.rows);
      expect(shard.popcounts[0]).toBe(info.popcount_min);
      expect(shard.popcounts[shard.rows - 1]).toBe(info.popcount_max);
      for (let r = 0; r < shard.rows; r++) {
        const rec = rowRecord(shard, r, ['product_id', 'smiles', 'popcount']);
        const key: [number, string] = [rec.popcount as number, rec.smiles as string];
        expect(key[0] > prev[0] || (key[0] === prev[0] && key[1] > prev[1])).toBe(true);
        prev = key;
        seen.add(rec.product_id as string);
      }
    }
    expect(seen.size).toBe(uniqueCanonical);
    expect(seen.has('DUP1')).toBe(false);
  });

  it('stores the canonical SMILES and popcount RDKit gives for each input', async () => {
    const catalog = await openCatalog(dir);
    const shard = readShard(await readFile(catalog.shardPath(0)), 0);
    for (let r = 0; r < shard.rows; r++) {
      const rec = rowRecord(shard, r, ['product_id', 'smiles', 'popcount']);
      const ref = fixture.molecules[Number((rec.product_id as string).slice(1))];
      expect([rec.smiles, rec.popcount]).toEqual([ref.canonical, ref.popcount]);
    }
  });

  it('gives identical shards from the gzipped input', async () => {
    const gzDir = join(root, 'gz');
    await buildCatalog({ ...common, input: join(root, 'input.tsv.gz'), outDir: gzDir });
    expect(await shardHashes(gzDir)).toEqual(await shardHashes(dir));
  });

  it('resumes an aborted build from its checkpoints and ends with the same shards', async () => {
    const resumeDir = join(root, 'resume');
    const ctl = new AbortController();
    await expect(
      buildCatalog({
        ...common,
        input: tsv,
        outDir: resumeDir,
        onChunk: (saved) => saved >= 2 && ctl.abort(new Error('stop')),
        signal: ctl.signal,
      }),
    ).rejects.toThrow('stop');
    await expect(openCatalog(resumeDir)).rejects.toMatchObject({ code: 'catalog_not_found' });
    const saved = (await readdir(join(resumeDir, '.build'))).filter((f) => f.startsWith('chunk-')).length;
    expect(saved).toBeGreaterThanOrEqual(2);
    const r = await buildCatalog({ ...common, input: tsv, outDir: resumeDir });
    expect(r.reusedChunks).toBe(saved);
    expect(r.parsedChunks + r.reusedChunks).toBe(Math.ceil((fixture.molecules.length + 5) / 50));
    expect(await shardHashes(resumeDir)).toEqual(await shardHashes(dir));
    expect(await readdir(resumeDir)).not.toContain('.build');
  });

  it('fills the ADMET columns from a predictor and records model versions', async () => {
    const pdir = join(root, 'pred');
    const predictor = async (smiles: string[]) =>
      Object.fromEntries(ADMET_NAMES.map((n, k) => [n, Float32Array.from(smiles, (s) => s.length + k)]));
    const { manifest: m } = await buildCatalog({
      ...common,
      input: tsv,
      outDir: pdir,
      limit: 40,
      predictor,
      models: { herg: 'v1' },
    });
    expect(m.models).toEqual({ herg: 'v1' });
    const catalog = await openCatalog(pdir);
    const rec = rowRecord(readShard(await readFile(catalog.shardPath(0)), 0), 0, [
      'smiles',
      'herg',
      'caco2_wang',
    ]);
    expect(rec.caco2_wang).toBe((rec.smiles as string).length);
    expect(rec.herg).toBe((rec.smiles as string).length + ADMET_NAMES.indexOf('herg'));
  });

  it('reads headerless .smi files with columns by position and fails clearly on unknown columns', async () => {
    const smi = join(root, 'input.smi');
    await writeFile(
      smi,
      fixture.molecules
        .slice(0, 20)
        .map((m, i) => `${m.input} S${i}`)
        .join('\n') + '\n',
    );
    const { manifest: m } = await buildCatalog({
      ...common,
      input: smi,
      outDir: join(root, 'smi'),
      smilesCol: '0',
      idCol: '1',
    });
    expect(m.counts.molecules).toBe(20);
    await expect(
      buildCatalog({ ...common, input: tsv, outDir: join(root, 'badcol'), idCol: 'zinc_id' }),
    ).rejects.toMatchObject({ code: 'catalog_build' });
  });
});
