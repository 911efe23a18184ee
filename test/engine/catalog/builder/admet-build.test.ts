import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeData, RecordBatch, Schema, Struct, Table, tableToIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMET_NAMES,
  ADMET_OOD_COLUMN,
  buildCatalog,
  openCatalog,
  readShard,
  rowRecord,
  type Catalog,
  type ShardData,
} from '../../../../engine/catalog/index.ts';
import {
  ADMET_ENDPOINTS,
  createAdmetPredictor,
  type AdmetPredictor,
} from '../../../../engine/admet/index.ts';

// Python reference: onnxruntime scores and models/domain.py flags for 200 molecules
// (models/make_prediction_fixture.py).
const fixture = JSON.parse(
  readFileSync(new URL('../../admet/fixtures/predictions-sample.json', import.meta.url), 'utf8'),
) as {
  model_version: string;
  smiles: string[];
  endpoints: Record<string, { score: number[]; in_domain: number[] }>;
};

let root: string;
let input: string;
let predictor: AdmetPredictor;
const common = {
  id: 'admetcat',
  name: 'ADMET test',
  smilesCol: 'smiles',
  idCol: 'id',
  threads: 1,
  chunkRows: 40,
  shardRows: 64,
  progress: false,
  delimiter: '\t',
};

async function loadShards(c: Catalog): Promise<ShardData[]> {
  return Promise.all(
    c.manifest.shards.map(async (_, i) => {
      const b = await readFile(c.shardPath(i));
      const bytes = new Uint8Array(b.byteLength);
      bytes.set(b);
      return readShard(bytes, i);
    }),
  );
}
const rowsOf = async (c: Catalog) =>
  (await loadShards(c)).flatMap((s) => Array.from({ length: s.rows }, (_, r) => rowRecord(s, r)));

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'admet-build-'));
  input = join(root, 'input.tsv');
  await writeFile(
    input,
    ['smiles\tid', ...fixture.smiles.map((s, i) => `${s}\tA${i}`), 'C1CC\tBAD'].join('\n') + '\n',
  );
  predictor = await createAdmetPredictor({ threads: 1 });
}, 60_000);
afterAll(async () => predictor?.close());

describe('catalog build with ADMET predictions', () => {
  let catalog: Catalog;
  beforeAll(async () => {
    await buildCatalog({ ...common, input, outDir: join(root, 'full'), admet: true });
    catalog = await openCatalog(join(root, 'full'));
  }, 120_000);

  it('records the model version of every column in the manifest', () => {
    expect(catalog.manifest.models).toEqual(
      Object.fromEntries(ADMET_NAMES.map((n) => [n, fixture.model_version])),
    );
    expect(catalog.manifest.columns.map((c) => c.name)).toContain(ADMET_OOD_COLUMN);
  });

  it('stores the Python reference predictions and domain flags (1e-5) for every molecule', async () => {
    const byId = new Map((await rowsOf(catalog)).map((r) => [String(r.product_id), r]));
    const dupes = fixture.smiles.length - byId.size; // the fixture may hold the same molecule twice
    expect(dupes).toBeLessThan(5);
    let checked = 0;
    fixture.smiles.forEach((_, i) => {
      const row = byId.get(`A${i}`);
      if (!row) return;
      checked++;
      ADMET_ENDPOINTS.forEach((key, e) => {
        const want = fixture.endpoints[key].score[i];
        expect(
          Math.abs((row[key] as number) - want) / Math.max(1, Math.abs(want)),
          `${key} A${i}`,
        ).toBeLessThanOrEqual(1e-5);
        expect(((row[ADMET_OOD_COLUMN] as number) >>> e) & 1, `${key} A${i} domain`).toBe(
          fixture.endpoints[key].in_domain[i] ? 0 : 1,
        );
      });
    });
    expect(checked).toBe(byId.size);
  });

  it('equals predicting the stored molecules directly with the predictor', async () => {
    const rows = await rowsOf(catalog);
    const t = await predictor.predictSmiles(rows.map((r) => String(r.smiles)));
    rows.forEach((r, i) => {
      ADMET_ENDPOINTS.forEach((key, e) =>
        expect(Math.abs((r[key] as number) - t.scores[e * t.n + i])).toBeLessThanOrEqual(1e-5),
      );
      expect(r[ADMET_OOD_COLUMN]).toBe(t.ood[i]);
    });
  });

  it('resumes an interrupted build from chunk checkpoints that hold the predictions', async () => {
    const dir = join(root, 'resume');
    const ctl = new AbortController();
    await expect(
      buildCatalog({
        ...common,
        input,
        outDir: dir,
        admet: true,
        onChunk: (n) => n >= 2 && ctl.abort(new Error('stop')),
        signal: ctl.signal,
      }),
    ).rejects.toThrow('stop');
    const saved = (await readdir(join(dir, '.build'))).filter((f) => f.startsWith('chunk-'));
    expect(saved.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(await readFile(join(dir, '.build', saved[0]), 'utf8')).admet).toEqual(
      expect.any(String),
    );
    const r = await buildCatalog({ ...common, input, outDir: dir, admet: true });
    expect(r.reusedChunks).toBeGreaterThanOrEqual(2);
    const a = await rowsOf(await openCatalog(dir));
    const b = await rowsOf(catalog);
    expect(a).toEqual(b);
  }, 120_000);

  it('leaves the columns null without --admet, and the mask null too', async () => {
    const dir = join(root, 'plain');
    await buildCatalog({ ...common, input, outDir: dir, limit: 30 });
    const c = await openCatalog(dir);
    expect(c.manifest.models).toBeNull();
    const r = (await rowsOf(c))[0];
    expect(ADMET_NAMES.every((n) => r[n] === null)).toBe(true);
    expect(r[ADMET_OOD_COLUMN]).toBeNull();
  }, 60_000);

  it('still reads shards written before the admet_ood column existed', async () => {
    const [shard] = await loadShards(catalog);
    const cols = Object.fromEntries(
      shard.table.schema.fields
        .filter((f) => f.name !== ADMET_OOD_COLUMN)
        .map((f) => [f.name, shard.table.getChild(f.name)!]),
    );
    // Re-encode the same batch without the mask column, keeping the schema metadata.
    const fields = shard.table.schema.fields.filter((f) => f.name !== ADMET_OOD_COLUMN);
    const schema = new Schema(fields, shard.table.schema.metadata);
    const data = makeData({
      type: new Struct(fields),
      length: shard.rows,
      nullCount: 0,
      children: fields.map((f) => cols[f.name].data[0]),
    });
    const bytes = tableToIPC(new Table(schema, [new RecordBatch(schema, data)]), 'file');
    const legacy = readShard(bytes, 0);
    const rec = rowRecord(legacy, 0);
    expect(rec).not.toHaveProperty(ADMET_OOD_COLUMN);
    expect(rec.herg).toBe(rowRecord(shard, 0).herg);
  });
});
