import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { validationError } from '../../../platform/errors.ts';
import { checkFormats, type DownloadService } from '../../services/jobs-downloads.ts';
import { checkPropRanges } from '../../services/jobs-page.ts';
import { BoolParam } from './params.ts';
import { PagingBody } from './jobs.ts';

const PrepareQuery = Type.Object({
  job_name: Type.String({ default: 'XXX' }),
  db_name: Type.Optional(
    Type.Array(Type.String(), { description: 'Accepted for compatibility; the job knows its databases' }),
  ),
  file_format: Type.Array(Type.String(), {
    default: ['csv'],
    description: 'csv, json, xlsx, sdf (repeated parameter; several at once)',
  }),
  include_properties: BoolParam(false, 'Add the 33 property columns'),
  include_metadata: BoolParam(false, 'Add job_name and query_smiles columns'),
  include_synthons: BoolParam(
    true,
    'Synthon-space jobs: add product_id, reaction_id and synthon_<n>_id / synthon_<n>_smiles (n = 1..4)',
  ),
  sim_th: Type.Number({ default: 0, minimum: 0, maximum: 1 }),
  d_min: Type.Number({ default: 0, minimum: 0, maximum: 1 }),
  d_max: Type.Number({ default: 1, minimum: 0, maximum: 1 }),
});

const DownloadViewSchema = Type.Object({
  download_id: Type.String(),
  job_name: Type.String(),
  status: Type.String({ description: 'PENDING, STARTED, READY or FAILURE' }),
  formats: Type.Array(Type.String()),
  files: Type.Array(Type.Object({ format: Type.String(), url: Type.Union([Type.String(), Type.Null()]) })),
  error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  updated_at: Type.String(),
});

const ById = Type.Object({ download_id: Type.String() });

/** Legacy download routes: prepare, link status, the caller's downloads, and file serving. */
export function registerDownloadRoutes(app: App, downloads: DownloadService): void {
  const tags = ['legacy downloads'];
  app.post(
    '/prepare_download',
    {
      schema: {
        tags,
        summary: 'Start preparing download files of a finished job',
        querystring: PrepareQuery,
        body: Type.Optional(PagingBody),
        response: { 200: DownloadViewSchema },
      },
    },
    async (request) => {
      const q = request.query;
      const body = request.body ?? {};
      if (q.d_min > q.d_max)
        throw validationError(['query', 'd_min'], `d_min (${q.d_min}) is greater than d_max (${q.d_max})`);
      const formats = checkFormats(q.file_format);
      return downloads.prepare(request.account.id, q.job_name, formats, {
        includeProperties: q.include_properties,
        includeMetadata: q.include_metadata,
        includeSynthons: q.include_synthons,
        simTh: q.sim_th,
        dMin: q.d_min,
        dMax: q.d_max,
        propRanges: checkPropRanges(body.prop_ranges),
      });
    },
  );
  app.post(
    '/get_download_link',
    {
      schema: {
        tags,
        summary: 'The download link of a job in one format: the ready file, or a download started',
        description:
          'Answers READY with the URL when the same download exists; otherwise starts it (as /prepare_download) and answers PENDING with the download_id to poll with /download_link.',
        querystring: Type.Object({
          job_name: Type.String(),
          file_format: Type.String({ default: 'csv', description: 'csv, json, xlsx or sdf' }),
          include_properties: BoolParam(false, 'Add the 33 property columns'),
          include_metadata: BoolParam(false, 'Add job_name and query_smiles columns'),
          include_synthons: BoolParam(true, 'Synthon-space jobs: add the synthon columns'),
          sim_th: Type.Number({ default: 0, minimum: 0, maximum: 1 }),
        }),
        body: Type.Optional(PagingBody),
        response: {
          200: Type.Object(
            {
              status: Type.String({ description: 'PENDING, STARTED or READY' }),
              download_id: Type.String(),
              url: Type.Union([Type.String(), Type.Null()]),
              job_name: Type.String(),
              file_format: Type.String(),
            },
            {
              examples: [
                {
                  status: 'READY',
                  download_id: 'dl_01JD6N0F7W5XQ8ZB9V2T3K4M5P',
                  url: 'http://127.0.0.1:8000/downloads/dl_01JD6N0F7W5XQ8ZB9V2T3K4M5P/csv',
                  job_name: 'job_01JD6N0F7W5XQ8ZB9V2T3K4M5Q',
                  file_format: 'csv',
                },
              ],
            },
          ),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const [format] = checkFormats([q.file_format]);
      return downloads.link(request.account.id, q.job_name, format, {
        includeProperties: q.include_properties,
        includeMetadata: q.include_metadata,
        includeSynthons: q.include_synthons,
        simTh: q.sim_th,
        dMin: 0,
        dMax: 1,
        propRanges: checkPropRanges((request.body ?? {}).prop_ranges),
      });
    },
  );
  app.get(
    '/download_link',
    {
      schema: {
        tags,
        summary: 'Status of a download and the URL of each finished file',
        querystring: ById,
        response: { 200: DownloadViewSchema },
      },
    },
    (request) => downloads.status(request.account.id, request.query.download_id),
  );
  app.get(
    '/download_status',
    {
      schema: {
        tags,
        summary: 'Alias of /download_link',
        querystring: ById,
        response: { 200: DownloadViewSchema },
      },
    },
    (request) => downloads.status(request.account.id, request.query.download_id),
  );
  app.get(
    '/user_downloads',
    {
      schema: {
        tags,
        summary: "The caller's downloads, newest first",
        response: { 200: Type.Array(DownloadViewSchema) },
      },
    },
    (request) => downloads.list(request.account.id),
  );
  app.get(
    '/downloads/:download_id/:format',
    {
      schema: {
        tags,
        summary: 'A finished download file (served by the API when the object store cannot presign)',
        params: Type.Object({ download_id: Type.String(), format: Type.String() }),
      },
    },
    async (request, reply) => {
      const p = request.params;
      const f = await downloads.file(request.account.id, p.download_id, p.format);
      reply.header('content-type', f.contentType);
      reply.header('content-disposition', `attachment; filename="${f.filename.replace(/"/g, '')}"`);
      if (f.bytes !== undefined) reply.header('content-length', String(f.bytes));
      return reply.send(f.stream);
    },
  );
}
