/**
 * GET /analysis_result and /analysis_result_file: the outcome of an analysis job (an operation
 * whose input was above its synchronous limit; docs/operations.md, "Jobs"). The job itself is a
 * legacy job: /job_status, /job_info, /user_jobs and /revoke_job work on it as on any other.
 */
import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import type { AnalysisService } from '../../services/analysis.ts';
import { ex, TAGS } from './analysis-params.ts';

const JobName = Type.String({ description: 'The job_name a 202 answer gave' });

/** The analysis job result routes over the analysis service's job mode. */
export function registerAnalysisJobRoutes(app: App, analysis: AnalysisService): void {
  app.get(
    '/analysis_result',
    {
      schema: {
        tags: TAGS.other,
        summary: 'State and, once SUCCESS, the summary of an analysis job (files named in result.files)',
        querystring: Type.Object({ job_name: JobName }),
        response: {
          200: ex(Type.Object({}, { additionalProperties: true }), {
            job_name: 'job_01JD5Q5Z6W3Y8K2M4N6P8R0T2V',
            status: 'SUCCESS',
            kind: 'analysis_database_similarity',
            progress: { shards_done: 4, shards_total: 4 },
            rows: 4000,
            error: null,
            result: {
              op: 'database_similarity',
              source_db: 'zinc15_sample',
              db_names: ['chembl_drugs'],
              molecules: 4000,
              without_neighbour: 0,
              distribution: { count: 4000, mean: 0.31, std: 0.08, min: 0.09, max: 1 },
              files: ['nearest.npy'],
            },
          }),
        },
      },
    },
    (request) => analysis.jobMode().result(request.account.id, request.query.job_name),
  );

  app.get(
    '/analysis_result_file',
    {
      schema: {
        tags: TAGS.other,
        summary: 'A result file of a finished analysis job (matrix.npy, nearest.npy), as bytes',
        querystring: Type.Object({
          job_name: JobName,
          name: Type.String({ description: 'A file listed in the result’s files' }),
        }),
      },
    },
    async (request, reply) => {
      const bytes = await analysis
        .jobMode()
        .file(request.account.id, request.query.job_name, request.query.name);
      return reply
        .type('application/octet-stream')
        .header('content-disposition', `attachment; filename=${request.query.name}`)
        .send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    },
  );
}
