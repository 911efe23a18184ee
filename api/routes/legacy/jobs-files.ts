import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../types.ts';
import { validationError } from '../../../platform/errors.ts';
import type { SearchService, SearchType } from '../../services/search-service.ts';
import { MAX_UPLOAD_BYTES, type FileService } from '../../services/jobs-files.ts';
import { isMultipart, multipartFile } from './multipart.ts';
import { THREE_D_TYPES, type ShapeSearchService, type ThreeDType } from '../../services/shape-search.ts';
import { databases3d } from './search.ts';
import { checkDatabases, capNeighbors, INT32_MAX, SearchQualitySchema, SearchTypeSchema } from './params.ts';

const UploadQuery = Type.Object({
  path: Type.String({ description: 'Destination inside your file area, e.g. inputs/mols.csv' }),
});
const UploadView = Type.Object({ path: Type.String(), bytes: Type.Integer(), uploaded_at: Type.String() });
const FileView = Type.Object({
  path: Type.String(),
  bytes: Type.Integer(),
  uploaded_at: Type.Union([Type.String(), Type.Null()], { description: 'null for outputs' }),
  kind: Type.Union([Type.Literal('upload'), Type.Literal('output')], {
    description: 'upload: POST /upload_file; output: written by /search_file or an analysis',
  }),
});

const SearchFileQuery = Type.Object({
  input_file: Type.String({
    default: '',
    description: 'A path in your file area (uploaded with POST /upload_file)',
  }),
  smiles_col: Type.String({ default: 'SMILES' }),
  search_type: Type.Union([SearchTypeSchema], { default: 'espsim_shape' }),
  n_neighbors: Type.Integer({ default: 30, maximum: INT32_MAX }),
  search_quality: Type.Union([SearchQualitySchema], { default: 'fast' }),
  db_names: Type.Optional(Type.String({ description: 'Comma-separated databases' })),
  output_file: Type.Optional(
    Type.String({ description: 'Destination path in your file area (default <input>_results.csv)' }),
  ),
});

/** Uploads into the caller's file area and /search_file over a file there. */
export function registerFileRoutes(
  app: App,
  deps: { files: FileService; search: SearchService; shape?: ShapeSearchService },
): void {
  const tags = ['legacy files'];
  app.register(async (instance) => {
    const scope = instance.withTypeProvider<TypeBoxTypeProvider>();
    // Raw bodies for uploads only (this scope), buffered up to the upload limit.
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_UPLOAD_BYTES }, (_req, body, done) =>
      done(null, body),
    );
    scope.post(
      '/upload_file',
      {
        schema: {
          tags,
          summary: 'Upload a file (raw body, or one file part of multipart/form-data) into your file area',
          querystring: UploadQuery,
          response: { 200: UploadView },
        },
      },
      async (request) => {
        const body = request.body;
        if (!(body instanceof Uint8Array))
          throw validationError(['body'], 'send the file as the raw request body');
        const type = request.headers['content-type'];
        // curl -F / requests' files= send a multipart envelope: store only its file part.
        const bytes = isMultipart(type) ? multipartFile(body, type!).bytes : body;
        const u = await deps.files.upload(request.account.id, request.query.path, bytes);
        return { path: u.path, bytes: u.bytes, uploaded_at: u.createdAt.toISOString() };
      },
    );
  });
  app.get(
    '/user_files',
    {
      schema: {
        tags,
        summary: 'Your file area: uploads newest first, then outputs written there by searches and analyses',
        response: { 200: Type.Array(FileView) },
      },
    },
    (request) => deps.files.list(request.account.id),
  );
  app.get(
    '/user_file',
    {
      schema: {
        tags,
        summary: 'Downloads a file of your file area (an upload or an output), by its path',
        querystring: UploadQuery,
      },
    },
    async (request, reply) => {
      const f = await deps.files.open(request.account.id, request.query.path);
      const name = f.path
        .split('/')
        .pop()!
        .replace(/[^\w.-]/g, '_');
      return reply
        .header('content-type', 'application/octet-stream')
        .header('content-length', String(f.bytes))
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(f.stream);
    },
  );
  app.get(
    '/search_file',
    {
      schema: {
        tags,
        summary: 'Similarity search for every SMILES of an uploaded file; writes a CSV to your file area',
        querystring: SearchFileQuery,
      },
    },
    async (request) => {
      const q = request.query;
      // Capped like /molsearch (a client asking for more gets rows and a remark, not a 422).
      const { k, remark } = capNeighbors(q.n_neighbors);
      const names = q.db_names !== undefined ? q.db_names.split(',') : undefined;
      const types = [q.search_type as SearchType];
      const shape = (THREE_D_TYPES as readonly string[]).includes(q.search_type) ? deps.shape : undefined;
      const dbNames = shape
        ? await databases3d(deps.search, shape, names, types)
        : checkDatabases(deps.search, names, types);
      // 3D: one input at a time (each embedding and exact stage already uses the worker and pool).
      const run3d = async (smiles: string[]) => {
        const out = [];
        for (const [i, s] of smiles.entries())
          out.push(
            await shape!.search({
              smiles: s,
              dbNames,
              k,
              types: [q.search_type as ThreeDType],
              quality: q.search_quality,
              descriptors: false,
              loc: ['query', 'search_input', i],
            }),
          );
        return out;
      };
      return deps.files.searchFile(request.account.id, {
        run: shape ? run3d : undefined,
        inputFile: q.input_file,
        outputFile: q.output_file,
        smilesCol: q.smiles_col,
        dbNames,
        k,
        searchType: q.search_type,
        remarks: remark ? [remark] : [],
      });
    },
  );
}
