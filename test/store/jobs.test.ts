import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../store/index.ts';
import { createJobs, createUploads } from '../../store/jobs.ts';
import { createDownloads } from '../../store/downloads.ts';
import { BACKENDS, type TestTarget } from './backends.ts';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`jobs and downloads store (${backend.title})`, () => {
    let target: TestTarget;
    let store: Store;
    let a: string;
    let b: string;
    beforeAll(async () => {
      target = await backend.open();
      store = await openStore({
        databaseUrl: target.databaseUrl,
        pgliteDir: target.pgliteDir,
        tierLimits: { free: 10 },
      });
      a = (await store.accounts.createApiKey({ user: 'alice', tier: 'free' })).accountId;
      b = (await store.accounts.createApiKey({ user: 'bob', tier: 'free' })).accountId;
    });
    afterAll(async () => {
      await store?.close();
      await target?.dispose();
    });

    it('scopes jobs to their owner, lists newest first, and never leaves a final status', async () => {
      const jobs = createJobs(store.db);
      await jobs.create({ id: 'job_1', accountId: a, kind: 'molsearch', params: { n: 1 } });
      await new Promise((r) => setTimeout(r, 5));
      await jobs.create({ id: 'job_2', accountId: a, kind: 'molsearch', params: {} });
      expect(await jobs.get('job_1', b)).toBeUndefined();
      expect((await jobs.get('job_1', a))?.params).toEqual({ n: 1 });
      expect((await jobs.list(a)).map((j) => j.id)).toEqual(['job_2', 'job_1']);
      expect(await jobs.list(b)).toEqual([]);
      expect(
        (await jobs.update('job_1', { status: 'STARTED', progress: { shardsDone: 0, shardsTotal: 3 } }))
          ?.status,
      ).toBe('STARTED');
      expect((await jobs.update('job_1', { status: 'PENDING' }))?.status).toBe('STARTED');
      expect((await jobs.update('job_1', { progress: { shardsDone: 2 } }))?.progress).toEqual({
        shardsDone: 2,
        shardsTotal: 3,
      });
      // A record retried late (shards 1 of 3 after 2 of 3) does not take the count back; a new
      // total starts a new stage and is taken as it is.
      const progressAfter = async (progress: { shardsDone: number; shardsTotal?: number }) =>
        (await jobs.update('job_1', { progress }))?.progress;
      expect(await progressAfter({ shardsDone: 1, shardsTotal: 3 })).toEqual({
        shardsDone: 2,
        shardsTotal: 3,
      });
      expect(await progressAfter({ shardsDone: 1 })).toEqual({ shardsDone: 2, shardsTotal: 3 });
      expect(await progressAfter({ shardsDone: 1, shardsTotal: 40 })).toEqual({
        shardsDone: 1,
        shardsTotal: 40,
      });
      const revoked = await jobs.update('job_1', { status: 'REVOKED', error: 'revoked' });
      expect(revoked?.finishedAt).toBeInstanceOf(Date);
      expect((await jobs.update('job_1', { status: 'SUCCESS', rows: 5 }))?.status).toBe('REVOKED');
    });

    it('merges slice progress of concurrent slices into the job, keeps the other progress, and leaves a final job alone', async () => {
      const jobs = createJobs(store.db);
      await jobs.create({ id: 'job_s', accountId: a, kind: 'synthon', params: {} });
      await jobs.update('job_s', { status: 'STARTED', progress: { shardsDone: 0, shardsTotal: 3 } });
      await Promise.all([
        jobs.sliceProgress('job_s', { '0': 0.25 }, 3),
        jobs.sliceProgress('job_s', { '1': 0.5, '2': 0.125 }, 3),
      ]);
      await jobs.sliceProgress('job_s', { '0': 1 }, 3);
      await jobs.update('job_s', { progress: { shardsDone: 1, shardsTotal: 3 } });
      expect((await jobs.get('job_s'))?.progress).toEqual({
        shardsDone: 1,
        shardsTotal: 3,
        slices: { '0': 1, '1': 0.5, '2': 0.125 },
        slicesTotal: 3,
      });
      await jobs.update('job_s', { status: 'REVOKED' });
      await jobs.sliceProgress('job_s', { '1': 0.75 }, 3);
      expect((await jobs.get('job_s'))?.progress.slices).toEqual({ '0': 1, '1': 0.5, '2': 0.125 });
    });

    it('records downloads with merged keys and uploads by path', async () => {
      const downloads = createDownloads(store.db);
      await downloads.create({
        id: 'dl_1',
        jobId: 'job_2',
        accountId: a,
        formats: ['csv', 'sdf'],
        params: { simTh: 0.5 },
      });
      await downloads.update('dl_1', { keys: { csv: 'k1' } });
      const d = await downloads.update('dl_1', { status: 'READY', keys: { sdf: 'k2' } });
      expect(d).toMatchObject({
        status: 'READY',
        keys: { csv: 'k1', sdf: 'k2' },
        formats: ['csv', 'sdf'],
        params: { simTh: 0.5 },
      });
      expect((await downloads.update('dl_1', { status: 'FAILURE' }))?.status).toBe('READY');
      expect(await downloads.get('dl_1', b)).toBeUndefined();
      const uploads = createUploads(store.db);
      await uploads.record({
        id: 'up_1',
        accountId: a,
        path: 'x.csv',
        objectKey: 'users/a/files/x.csv',
        bytes: 10,
      });
      expect((await uploads.byPath(a, 'x.csv'))?.bytes).toBe(10);
      expect(await uploads.byPath(b, 'x.csv')).toBeUndefined();
    });
  });
}
