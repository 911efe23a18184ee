import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createLogger } from '../../platform/logger.ts';
import { startWorkers, type RunningWorkers } from '../../worker/worker.ts';
import { createCatalog3dActivities } from '../../activities/catalog3d.ts';
import { buildCatalog, openCatalog, readShard, type Catalog } from '../../engine/catalog/index.ts';
import { loadShard3d, molecule3d } from '../../engine/catalog/three-d-reader.ts';
import {
  CHEM3D_WORKFLOWS,
  chem3dQueue,
  chem3dWorkflowIds,
  taskQueue,
  type Catalog3dInput,
  type Catalog3dResult,
} from '../../workflows/contracts.ts';
import type { Chem3dWorker } from '../../platform/chem3d/process.ts';
import { describeConformers } from '../../engine/shape/index.ts';
import { startTestChem3d } from '../support/chem3d.ts';
import { createThreeDStatus } from '../../api/services/three-d-status.ts';
import { tempDir } from './support/stack.ts';

// Real parts: the shared Temporal dev server, the Python chem3d worker (killed and replaced in
// the resumption test), the Node worker running catalog3dWorkflow, real catalogs built by RDKit.
interface RefMolecule {
  smiles: string;
  atomCount: number;
  confCount: number;
  coords: number[];
}
const REF = JSON.parse(
  readFileSync(new URL('../fixtures/chem3d-reference.json', import.meta.url), 'utf8'),
) as { molecules: RefMolecule[] };
const DRUGS = readFileSync(new URL('../fixtures/v2/chembl-drugs.smi', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => l.trim().split(/\s+/));
const BAD: [string, string, RegExp][] = [
  ['CC[Se]CC', 'BAD-SE', /no Gasteiger charge for element\(s\) Se/],
  ['C'.repeat(120), 'BAD-BIG', /too large for 3D: 120 heavy atoms/],
];

const address = () => inject('temporalAddress');
const prefix = `c3d-${randomBytes(4).toString('hex')}`;
let node: RunningWorkers;
let connection: Connection;
let client: Client;
const pythons: Chem3dWorker[] = [];

async function makeCatalog(id: string, rows: string[][]): Promise<Catalog> {
  const dir = await tempDir(`cat3d-${id}`);
  const input = join(dir, 'input.tsv');
  await writeFile(input, ['smiles\tid', ...rows.map((r) => r.join('\t'))].join('\n') + '\n');
  const out = join(dir, id);
  await buildCatalog({
    input,
    outDir: out,
    id,
    name: id,
    smilesCol: 'smiles',
    idCol: 'id',
    delimiter: '\t',
    threads: 1,
    progress: false,
    shardRows: 12,
  });
  return openCatalog(out);
}

const stage = (c: Catalog, extra: Partial<Catalog3dInput> = {}) =>
  client.workflow.start(CHEM3D_WORKFLOWS.catalog3d, {
    taskQueue: taskQueue(prefix, 'orchestration'),
    workflowId: chem3dWorkflowIds.catalog3d(c.manifest.id),
    args: [
      {
        dir: c.dir,
        partRows: 5,
        queues: { node: taskQueue(prefix, 'scan'), chem3d: chem3dQueue(prefix, 'catalog') },
        ...extra,
      } satisfies Catalog3dInput,
    ],
  });

beforeAll(async () => {
  const log = createLogger({ level: 'warn', pretty: false });
  node = await startWorkers({
    address: address(),
    namespace: 'default',
    prefix,
    activities: createCatalog3dActivities({ log }),
    kinds: ['orchestration', 'scan'],
    log,
  });
  connection = await Connection.connect({ address: address() });
  client = new Client({ connection });
  pythons.push(await startTestChem3d(address(), prefix));
}, 300_000);

afterAll(async () => {
  for (const p of pythons) await p.stop();
  await node?.shutdown();
  await connection?.close();
});

describe('catalog 3D stage', () => {
  it('embeds every molecule into shard-aligned sidecars, rejects with reasons, lists the 3D search types', async () => {
    const rows = [
      ...REF.molecules.map((m, i) => [m.smiles, `REF-${i}`]),
      ...BAD.map(([s, id]) => [s, id]),
      ...DRUGS.slice(5, 20),
    ];
    const c = await makeCatalog(`small3d${prefix.slice(4)}`, rows);
    expect(c.manifest.shards.length).toBeGreaterThan(1);
    const res = (await (await stage(c)).result()) as Catalog3dResult;
    const m = (await openCatalog(c.dir)).manifest;
    expect(m.search_types).toEqual(['morgan', 'espsim_shape', 'espsim_electrostatic']);
    expect(m.three_d!.counts).toMatchObject({ molecules: m.counts.molecules, rejected: 2 });
    expect(res).toMatchObject({
      molecules: m.counts.molecules,
      rejected: 2,
      embedded: m.counts.molecules - 2,
    });
    expect(m.three_d!.files.map((f) => f.file)).toEqual(
      m.shards.map((s) => s.file.replace('.arrow', '.3d.arrow')),
    );
    expect(existsSync(join(c.dir, '.build-3d'))).toBe(false);
    const status = await createThreeDStatus({ catalogs: [c], workflows: client.workflow }).status(
      c.manifest.id,
    );
    expect(status).toMatchObject({
      status: 'ready',
      data_search_types: ['morgan', 'espsim_shape', 'espsim_electrostatic'],
      counts: { rejected: 2 },
    });
    const rejects = (await readFile(join(c.dir, 'rejects-3d.tsv'), 'utf8')).trim().split('\n').slice(1);
    expect(rejects).toHaveLength(2);
    for (const [, id, reason] of BAD) expect(rejects.find((l) => l.split('\t')[2] === id)).toMatch(reason);

    // Every row of every shard read back; the reference molecules equal Python RDKit's coordinates.
    const cat = await openCatalog(c.dir);
    const found = new Map<string, number>();
    for (let s = 0; s < cat.manifest.shards.length; s++) {
      const s3 = await loadShard3d(cat, s);
      const shardBytes = await readFile(cat.shardPath(s));
      const shard = readShard(new Uint8Array(shardBytes), s);
      expect(s3.rows).toBe(shard.rows);
      expect(s3.table.offsets.length).toBe(s3.rows + 1);
      for (let r = 0; r < shard.rows; r++) {
        const id = String(shard.table.getChild('product_id')!.get(r));
        const mol = molecule3d(s3, r);
        expect(mol === null, id).toBe(id.startsWith('BAD-'));
        const ref = id.startsWith('REF-') ? REF.molecules[Number(id.slice(4))] : undefined;
        if (ref && mol) {
          expect([mol.atomCount, mol.confCount]).toEqual([ref.atomCount, ref.confCount]);
          let max = 0;
          ref.coords.forEach((x, i) => (max = Math.max(max, Math.abs(x - mol.coords[i]))));
          expect(max, id).toBeLessThan(1e-4);
          // The stored first-stage descriptors are those of the stored conformers.
          const d = s3.table.descriptors.subarray(s3.table.offsets[r] * 60, s3.table.offsets[r + 1] * 60);
          expect(Array.from(d)).toEqual(Array.from(describeConformers(mol)));
        }
        found.set(id, (found.get(id) ?? 0) + 1);
      }
    }
    expect([...found.values()].every((n) => n === 1)).toBe(true);
    expect(found.size).toBe(rows.length);
  });

  it('resumes after the chem3d worker is killed mid-stage and completes with every molecule once', async () => {
    const c = await makeCatalog(`resume3d${prefix.slice(4)}`, DRUGS.slice(100, 130));
    const handle = await stage(c, { heartbeatTimeoutMs: 8000, concurrency: 1 });
    // Kill the worker once it has finished at least one part (and is in the middle of the next).
    const build = join(c.dir, '.build-3d');
    for (let i = 0; i < 600; i++) {
      const names = existsSync(build) ? await readdir(build) : [];
      if (names.some((n) => n.endsWith('.c3d'))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const building = await createThreeDStatus({ catalogs: [c], workflows: client.workflow }).status(
      c.manifest.id,
    );
    expect(building?.status).toBe('building');
    expect(building?.progress?.moleculesTotal).toBe(c.manifest.counts.molecules);
    await pythons[0].kill();
    const partsBefore = (await readdir(build)).filter((n) => n.endsWith('.c3d')).length;
    expect(partsBefore).toBeGreaterThan(0);
    pythons.push(await startTestChem3d(address(), prefix));
    const res = (await handle.result()) as Catalog3dResult;
    const m = (await openCatalog(c.dir)).manifest;
    expect(res.molecules).toBe(m.counts.molecules);
    expect(res.embedded + res.rejected).toBe(m.counts.molecules);
    expect(m.three_d!.files.reduce((n, f) => n + f.rows, 0)).toBe(m.counts.molecules);
    // The retried part was redone, the finished ones were not: the history shows one completion per part.
    const events = (await handle.fetchHistory()).events ?? [];
    const completed = events.filter((e) => e.activityTaskCompletedEventAttributes).length;
    const parts = m.shards.reduce((n, s) => n + Math.ceil(s.rows / 5), 0);
    // plan + per shard (planShard + parts + assemble) + finish
    expect(completed).toBe(1 + m.shards.length * 2 + parts + 1);
    // The sidecars hold every catalog row exactly once, embedded or listed in the 3D rejects.
    const cat = await openCatalog(c.dir);
    const rejected = new Set(
      (await readFile(join(c.dir, 'rejects-3d.tsv'), 'utf8'))
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split('\t')[2]),
    );
    const seen = new Map<string, number>();
    for (let s = 0; s < cat.manifest.shards.length; s++) {
      const s3 = await loadShard3d(cat, s);
      const shard = readShard(new Uint8Array(await readFile(cat.shardPath(s))), s);
      expect(s3.rows).toBe(shard.rows);
      for (let r = 0; r < shard.rows; r++) {
        const id = String(shard.table.getChild('product_id')!.get(r));
        expect(molecule3d(s3, r) === null, id).toBe(rejected.has(id));
        seen.set(id, (seen.get(id) ?? 0) + 1);
      }
    }
    expect(seen.size).toBe(DRUGS.slice(100, 130).length);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
  }, 600_000);
});
