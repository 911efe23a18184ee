import { inject, describe, expect, it } from 'vitest';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { startCatalog3dStages } from '../../bin/catalog3d-stages.ts';
import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { chem3dQueue } from '../../workflows/contracts.ts';
import { chem3dPython } from '../support/chem3d.ts';

/** temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY. */
const ACTIVITY_QUEUE = 2;

/**
 * CATALOG_3D=off turns off the background 3D stages, not 3D search: the Python worker that embeds
 * query molecules must still start, or every 3D query on an already 3D-ready catalog answers 503.
 */
describe('catalog 3D stages with CATALOG_3D=off', () => {
  it('still starts the chem3d worker on the query queue, and stops it on close', async () => {
    chem3dPython(); // the venv, installed on first use as the start command does
    const dataDir = await mkdtemp(join(tmpdir(), 'stages-off-'));
    const prefix = `stagesoff-${randomBytes(4).toString('hex')}`;
    const config = loadConfig({
      DATA_DIR: dataDir,
      CATALOG_DIR: join(dataDir, 'catalogs'),
      TASK_QUEUE_PREFIX: prefix,
      CATALOG_3D: 'off',
      CHEM3D_CONCURRENCY: '1',
      LOG_LEVEL: 'warn',
    });
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    const client = new Client({ connection });
    const pollers = async () =>
      (
        await client.workflowService.describeTaskQueue({
          namespace: 'default',
          taskQueue: { name: chem3dQueue(prefix, 'query') },
          taskQueueType: ACTIVITY_QUEUE,
        })
      ).pollers ?? [];
    const stages = await startCatalog3dStages({
      config,
      log: createLogger({ level: 'warn' }),
      address: inject('temporalAddress'),
      workflows: client.workflow,
      repoRoot: process.cwd(),
      ensureCatalogs: false,
    });
    try {
      await stages.serve();
      const deadline = Date.now() + 60_000;
      while (!(await pollers()).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
      expect((await pollers()).length).toBeGreaterThan(0);
    } finally {
      await stages.close();
      await connection.close();
    }
  }, 180_000);
});
