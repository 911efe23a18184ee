import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { writeSyntheticCatalog } from '../../testkit/synthetic-catalog.ts';
import { largeSpaceScanQueue, taskQueue } from '../../workflows/contracts.ts';
import { buildTestSpaces } from './support/spaces.ts';
import { call, stackEnv, startTestStack, tempDir, waitStatus, type TestStack } from './support/stack.ts';

// Jobs over large spaces scan on their own task queue and engine lane (contracts.ts
// largeSpaceScanQueue, engine/synthons/job-pool.ts), so a job over a small space never waits for
// their slots (user trial: an Idorsia job took 13 minutes beside a default-space job). Real parts:
// the shared Temporal dev server, PGlite, the local object store; LARGE_SPACE_PRODUCTS lowered so
// that the Idorsia toy space (29,200 products) counts as large and the amide space (12) as small.
let s: TestStack;
let prefix: string;
let connection: Connection;
let client: Client;

beforeAll(async () => {
  const dir = await tempDir('synthon-lanes');
  const catalogDir = join(dir, 'catalogs');
  await writeSyntheticCatalog(catalogDir, 'synth', 500, 500);
  await buildTestSpaces(join(dir, 'data'), ['idorsia_toy_space', 'rdkit_amide_space']);
  prefix = `synl-${randomBytes(4).toString('hex')}`;
  const env = stackEnv(join(dir, 'data'), catalogDir, inject('temporalAddress'), prefix, {
    LARGE_SPACE_PRODUCTS: '10000',
  });
  s = await startTestStack(env);
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection });
}, 300_000);

afterAll(async () => {
  await connection?.close();
  await s?.stack.stop();
});

/** The task queues the job's scan activities were scheduled on, from its workflow history. */
async function scanQueues(job: string): Promise<Set<string>> {
  const history = await client.workflow.getHandle(job).fetchHistory();
  const out = new Set<string>();
  for (const e of history.events ?? []) {
    const a = e.activityTaskScheduledEventAttributes;
    if (a?.activityType?.name?.startsWith('synthon')) out.add(a.taskQueue?.name ?? '');
  }
  return out;
}

describe('synthon jobs over large and small spaces', () => {
  it(
    'scan a large space on its own queue and a small one on the shared queue; both finish',
    { timeout: 400_000 },
    async () => {
      const submit = async (q: string) => {
        const r = await call(s, 'POST', `/submit_synthongpt_job?${q}`, s.keyA, {});
        expect(r.status, r.raw).toBe(200);
        return r.body as string;
      };
      const large = await submit(
        'search_input=C&db_name=idorsia_toy_space&search_mode=substructure&search_quality=100',
      );
      const small = await submit('search_input=C(=O)N&db_name=rdkit_amide_space&search_mode=substructure');
      expect(await waitStatus(s, s.keyA, small, 120_000)).toBe('SUCCESS');
      expect(await waitStatus(s, s.keyA, large, 240_000)).toBe('SUCCESS');
      expect(await scanQueues(large)).toEqual(new Set([largeSpaceScanQueue(prefix)]));
      expect(await scanQueues(small)).toEqual(new Set([taskQueue(prefix, 'scan')]));
      const rows = await call(
        s,
        'POST',
        `/get_molsearch_page?job_name=${small}&page_size=100&page_num=0`,
        s.keyA,
        {},
      );
      expect(rows.status).toBe(200);
    },
  );
});
