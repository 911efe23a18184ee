import { afterAll, beforeAll, inject } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { writeSyntheticCatalog } from '../../../testkit/synthetic-catalog.ts';
import { buildTestSpaces } from './spaces.ts';
import { pgAdmin, spawnWorkerProcess } from './worker-process.ts';
import { stackEnv, startTestStack, tempDir, type TestStack } from './stack.ts';

/** What a synthon-job worker test holds once its hooks have run (fields are set in beforeAll). */
export interface SynthonWorkerStack {
  /** False when PostgreSQL is unreachable: the tests skip themselves (a warning says so). */
  reachable: boolean;
  env: Record<string, string>;
  dataDir: string;
  /** The API in this process, without a worker. */
  api: TestStack;
  /** Starts a `molsearch worker` child process (killed after the file's tests). */
  spawnWorker(extra?: Record<string, string>): Promise<ChildProcess>;
  /** Result parts a job's slices have written so far. */
  partsOf(job: string): Promise<number>;
}

/**
 * Registers the file's hooks for synthon jobs run by worker processes: a PostgreSQL database of its
 * own shared by the API (in this process, no worker) and `molsearch worker` children, the shared
 * Temporal dev server, and a local object store with the Idorsia toy space and the FreedomSpace
 * sample in one data directory both sides use.
 */
export function useSynthonWorkerStack(label: string, what: string): SynthonWorkerStack {
  const adminUrl = inject('databaseUrl');
  const dbName = `molsearch_${label}_${process.pid}_${randomBytes(3).toString('hex')}`;
  const workers: ChildProcess[] = [];
  const s = { reachable: true } as SynthonWorkerStack;
  s.spawnWorker = (extra = {}) => spawnWorkerProcess({ ...s.env, ...extra }, workers);
  s.partsOf = async (job) => {
    try {
      return (await readdir(join(s.dataDir, 'objects', 'jobs', job, 'parts'))).length;
    } catch {
      return 0;
    }
  };
  beforeAll(async () => {
    try {
      await pgAdmin(adminUrl, `CREATE DATABASE ${dbName}`);
    } catch (err) {
      s.reachable = false;
      console.warn(
        `\n\u26a0\ufe0f  PostgreSQL unreachable at ${adminUrl} (${(err as Error).message}): the ${what} test is SKIPPED.\n`,
      );
      return;
    }
    const dir = await tempDir(label);
    s.dataDir = join(dir, 'data');
    const catalogDir = join(dir, 'catalogs');
    await writeSyntheticCatalog(catalogDir, 'small', 1_000, 1_000);
    await buildTestSpaces(s.dataDir, ['idorsia_toy_space', 'chemspace_freedom_sample']);
    const url = new URL(adminUrl);
    url.pathname = `/${dbName}`;
    const queues = `${label}-${randomBytes(4).toString('hex')}`;
    s.env = stackEnv(s.dataDir, catalogDir, inject('temporalAddress'), queues, {
      DATABASE_URL: url.toString(),
    });
    s.api = await startTestStack(s.env, { worker: false });
  }, 300_000);
  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await s.api?.stack.stop();
    if (s.reachable)
      await pgAdmin(adminUrl, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
  });
  return s;
}
