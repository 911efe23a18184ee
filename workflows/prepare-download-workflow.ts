import { proxyActivities } from '@temporalio/workflow';
import type { ExportActivities } from '../activities/exports.ts';
import { INVALID_INPUT_FAILURE, type PrepareDownloadInput, type PrepareDownloadResult } from './contracts.ts';
import { failureReason } from './job-lifecycle.ts';

/**
 * Prepares a download (workflow id = download id): streams the job result into each asked format
 * on the export queue (one activity per format, in parallel), then records READY with the keys,
 * or FAILURE with the reason.
 */
export async function prepareDownloadWorkflow(input: PrepareDownloadInput): Promise<PrepareDownloadResult> {
  const book = proxyActivities<ExportActivities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 20 },
  });
  const io = proxyActivities<ExportActivities>({
    taskQueue: input.queues.export,
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '2 minutes',
    retry: {
      initialInterval: '1s',
      maximumInterval: '30s',
      maximumAttempts: 5,
      nonRetryableErrorTypes: [INVALID_INPUT_FAILURE],
    },
  });
  try {
    await book.downloadRecord({ downloadId: input.downloadId, status: 'STARTED' });
    const written = await Promise.all(
      input.formats.map((format) =>
        io.exportJobResult({
          downloadId: input.downloadId,
          jobName: input.jobName,
          resultKey: input.resultKey,
          format,
          key: `${input.keyPrefix}${input.jobName}.${format}`,
          options: input.options,
        }),
      ),
    );
    const keys = Object.fromEntries(input.formats.map((f, i) => [f, written[i].key]));
    await book.downloadRecord({ downloadId: input.downloadId, status: 'READY', keys });
    return { keys };
  } catch (err) {
    await book.downloadRecord({ downloadId: input.downloadId, status: 'FAILURE', error: failureReason(err) });
    throw err;
  }
}
