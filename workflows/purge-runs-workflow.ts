import { proxyActivities } from '@temporalio/workflow';
import type { RunActivities } from '../activities/runs.ts';
import type { PurgeRunsResult } from './run-contracts.ts';

const { runsPurgeExpired } = proxyActivities<RunActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '5s', maximumAttempts: 5 },
});

/**
 * Retention of v2 runs: deletes every run past its `expires_at` and the objects it stored. Started
 * by the retention schedule (RUN_PURGE_SCHEDULE, hourly; overlapping starts are skipped), so the
 * purge runs once per deployment however many API or worker processes there are.
 */
export async function purgeExpiredRunsWorkflow(): Promise<PurgeRunsResult> {
  return runsPurgeExpired();
}
