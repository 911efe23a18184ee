// Every workflow of the service, for the worker's bundle. One file per workflow.
export { molsearchJobWorkflow } from './molsearch-job-workflow.ts';
export { synthonJobWorkflow } from './synthon-job-workflow.ts';
export { prepareDownloadWorkflow } from './prepare-download-workflow.ts';
export { runWorkflow } from './run-workflow.ts';
export { purgeExpiredRunsWorkflow } from './purge-runs-workflow.ts';
export { embedQueryWorkflow } from './embed-query-workflow.ts';
export { embedShortlistWorkflow } from './embed-shortlist-workflow.ts';
export { catalog3dWorkflow } from './catalog3d-workflow.ts';
export { analysisJobWorkflow } from './analysis-job-workflow.ts';
