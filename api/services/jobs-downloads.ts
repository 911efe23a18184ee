/**
 * Downloads of job results: /prepare_download records a download and starts its workflow; the
 * link status answers a URL per finished file (presigned on S3, served by the API for the local
 * object store); the caller's downloads are listed newest first. Owner-scoped like jobs.
 */
import type { Readable } from 'node:stream';
import type { WorkflowClient } from '@temporalio/client';
import { DomainError, notFound, validationError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logger.ts';
import type { ObjectStore } from '../../platform/object-store/index.ts';
import type { DownloadRecord, Downloads } from '../../store/downloads.ts';
import { EXPORT_CONTENT_TYPES, EXPORT_FORMATS, type ExportFormat } from '../../engine/export/index.ts';
import {
  JOB_WORKFLOWS,
  taskQueue,
  type DownloadOptions,
  type PrepareDownloadInput,
} from '../../workflows/contracts.ts';
import { DOWNLOAD_ID_PATTERN, newDownloadId } from './jobs-ids.ts';
import type { JobService } from './jobs.ts';

export interface DownloadServiceDeps {
  downloads: Downloads;
  objects: ObjectStore;
  workflows: WorkflowClient;
  taskQueuePrefix: string;
  publicUrl: string;
  log: Logger;
  jobs: JobService;
  /** Lifetime of presigned URLs. */
  linkSeconds?: number;
}

export interface DownloadView {
  download_id: string;
  job_name: string;
  status: DownloadRecord['status'];
  formats: string[];
  files: { format: string; url: string | null }[];
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** Validates file_format values (repeated or comma-joined); duplicates collapse. */
export function checkFormats(values: string[] | undefined): ExportFormat[] {
  const list = (values?.length ? values : ['csv'])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);
  // `file_format=` is no format at all, not the default: answering with no files hid the mistake.
  if (!list.length)
    throw validationError(
      ['query', 'file_format'],
      `empty value; allowed: ${EXPORT_FORMATS.join(', ')}`,
      'value_error.empty',
    );
  for (const f of list) {
    if (!(EXPORT_FORMATS as readonly string[]).includes(f))
      throw validationError(
        ['query', 'file_format'],
        `unknown format ${JSON.stringify(f)}; allowed: ${EXPORT_FORMATS.join(', ')}`,
      );
  }
  return [...new Set(list)] as ExportFormat[];
}

/** Creates the download service. */
export function createDownloadService(deps: DownloadServiceDeps) {
  const { downloads } = deps;

  async function own(accountId: string, id: string): Promise<DownloadRecord> {
    if (!DOWNLOAD_ID_PATTERN.test(id)) throw notFound(`download ${JSON.stringify(id.slice(0, 100))}`);
    const d = await downloads.get(id, accountId);
    if (!d) throw notFound(`download ${id}`);
    return d;
  }

  async function urlOf(d: DownloadRecord, format: string): Promise<string | null> {
    const key = d.keys[format];
    if (!key || d.status !== 'READY') return null;
    const presigned = await deps.objects.presignGet(key, deps.linkSeconds ?? 3600, key.split('/').pop());
    return presigned ?? `${deps.publicUrl}/downloads/${d.id}/${format}`;
  }

  async function view(d: DownloadRecord): Promise<DownloadView> {
    return {
      download_id: d.id,
      job_name: d.jobId,
      status: d.status,
      formats: d.formats,
      files: await Promise.all(d.formats.map(async (format) => ({ format, url: await urlOf(d, format) }))),
      error: d.error,
      created_at: d.createdAt.toISOString(),
      updated_at: d.updatedAt.toISOString(),
    };
  }

  return {
    downloads,
    /** Starts a download of a finished job in the given formats; answers its id and status. */
    async prepare(
      accountId: string,
      jobName: string,
      formats: ExportFormat[],
      options: DownloadOptions,
    ): Promise<DownloadView> {
      const { job } = await deps.jobs.result(accountId, jobName);
      if (job.status !== 'SUCCESS' || !job.resultKey) {
        throw new DomainError(
          'conflict',
          `job ${jobName} is ${job.status}; a download can be prepared once it is SUCCESS`,
        );
      }
      const id = newDownloadId();
      const d = await downloads.create({ id, jobId: jobName, accountId, formats, params: { ...options } });
      const input: PrepareDownloadInput = {
        downloadId: id,
        jobName,
        resultKey: job.resultKey,
        formats,
        keyPrefix: `users/${accountId}/downloads/${id}/`,
        options,
        queues: {
          scan: taskQueue(deps.taskQueuePrefix, 'scan'),
          export: taskQueue(deps.taskQueuePrefix, 'export'),
        },
      };
      try {
        await deps.workflows.start(JOB_WORKFLOWS.download, {
          workflowId: id,
          taskQueue: taskQueue(deps.taskQueuePrefix, 'orchestration'),
          args: [input],
        });
      } catch (err) {
        await downloads.update(id, { status: 'FAILURE', error: 'the download could not be started' });
        throw new DomainError('unavailable', 'the download service is unavailable; retry later', {
          cause: err,
        });
      }
      return view(d);
    },

    async status(accountId: string, id: string): Promise<DownloadView> {
      return view(await own(accountId, id));
    },

    async list(accountId: string): Promise<DownloadView[]> {
      return Promise.all((await downloads.list(accountId)).map(view));
    },

    /** The file of a READY download, for the API to serve (local object store). */
    async file(
      accountId: string,
      id: string,
      format: string,
    ): Promise<{ stream: Readable; bytes?: number; contentType: string; filename: string }> {
      const d = await own(accountId, id);
      const key = d.keys[format];
      if (d.status !== 'READY' || !key) throw notFound(`file ${format} of download ${id}`);
      const filename = key.split('/').pop()!;
      return {
        stream: await deps.objects.getStream(key),
        bytes: await deps.objects.head(key),
        contentType: EXPORT_CONTENT_TYPES[format as ExportFormat] ?? 'application/octet-stream',
        filename,
      };
    },
  };
}

export type DownloadService = ReturnType<typeof createDownloadService>;
