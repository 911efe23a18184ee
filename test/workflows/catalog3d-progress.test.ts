// The catalog 3D stage's progress while a shard is being embedded (user trial D6: the listing
// said `moleculesDone: 3328` with `embedded: 0`): embedded and rejected are counted per part, as
// moleculesDone, so they add up before the shard is assembled.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createLogger } from '../../platform/logger.ts';
import { startWorkers, type RunningWorkers } from '../../worker/worker.ts';
import { createCatalog3dActivities } from '../../activities/catalog3d.ts';
import { buildCatalog, openCatalog } from '../../engine/catalog/index.ts';
import {
  CATALOG_3D_PROGRESS_QUERY,
  CHEM3D_WORKFLOWS,
  chem3dQueue,
  taskQueue,
  type Catalog3dProgress,
  type EmbedPartInput,
} from '../../workflows/contracts.ts';
import { tempDir } from './support/stack.ts';

const prefix = `c3dp-${randomBytes(4).toString('hex')}`;
let node: RunningWorkers;
let connection: Connection;
let native: NativeConnection;
let chem3d: Worker;
let chem3dRun: Promise<void>;
let release: () => void = () => {};

beforeAll(async () => {
  const log = createLogger({ level: 'warn', pretty: false });
  node = await startWorkers({
    address: inject('temporalAddress'),
    namespace: 'default',
    prefix,
    activities: createCatalog3dActivities({ log }),
    kinds: ['orchestration', 'scan'],
    log,
  });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  // The chem3d worker (Python) replaced by one that reports the first part's counts and holds the
  // second part, so the stage stays in the middle of its shard (what is under test is the count).
  native = await NativeConnection.connect({ address: inject('temporalAddress') });
  let parts = 0;
  const held = new Promise<void>((r) => (release = r));
  chem3d = await Worker.create({
    connection: native,
    taskQueue: chem3dQueue(prefix, 'catalog'),
    activities: {
      async chem3dEmbedPart(_input: EmbedPartInput) {
        if (parts++ === 0) return { rows: 5, embedded: 4, rejected: 1 };
        await held;
        throw new Error('released');
      },
    },
  });
  chem3dRun = chem3d.run();
}, 300_000);

afterAll(async () => {
  release();
  chem3d?.shutdown();
  await chem3dRun?.catch(() => undefined);
  await native?.close();
  await node?.shutdown();
  await connection?.close();
});

describe('catalog 3D stage progress', () => {
  it('counts embedded and rejected per part: they add up to moleculesDone within a shard', async () => {
    const dir = await tempDir('cat3d-progress');
    await writeFile(
      join(dir, 'in.tsv'),
      ['smiles\tid', 'CCO\tA', 'CCN\tB', 'CCC\tC', 'CCCl\tD', 'c1ccccc1\tE', 'CC(=O)O\tF', 'CCOC\tG'].join(
        '\n',
      ) + '\n',
    );
    await buildCatalog({
      input: join(dir, 'in.tsv'),
      outDir: join(dir, 'cat'),
      id: 'progress3d',
      name: 'progress3d',
      smilesCol: 'smiles',
      idCol: 'id',
      delimiter: '\t',
      threads: 1,
      progress: false,
    });
    const c = await openCatalog(join(dir, 'cat'));
    const client = new Client({ connection });
    const handle = await client.workflow.start(CHEM3D_WORKFLOWS.catalog3d, {
      taskQueue: taskQueue(prefix, 'orchestration'),
      workflowId: `catalog3d-progress-${prefix}`,
      args: [
        {
          dir: c.dir,
          partRows: 5,
          concurrency: 1,
          queues: { node: taskQueue(prefix, 'scan'), chem3d: chem3dQueue(prefix, 'catalog') },
        },
      ],
    });
    let p: Catalog3dProgress | undefined;
    for (let i = 0; i < 600 && !(p && p.moleculesDone > 0); i++) {
      p = await handle.query<Catalog3dProgress>(CATALOG_3D_PROGRESS_QUERY);
      if (p.moleculesDone === 0) await new Promise((r) => setTimeout(r, 100));
    }
    await handle.terminate('test done');
    expect(p).toMatchObject({
      state: 'embedding',
      shardsDone: 0,
      moleculesDone: 5,
      embedded: 4,
      rejected: 1,
    });
  });
});
