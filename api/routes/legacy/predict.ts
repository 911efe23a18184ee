/**
 * GET /predict_array: the 22 ADMET predictions and the 11 descriptors of up to 1000 molecules, as a
 * column-oriented table; GET /exports/{filename}: the CSV export it wrote (when not presigned).
 */
import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import type { AdmetService } from '../../services/admet.ts';
import { MAX_PREDICT_MOLECULES } from '../../services/admet.ts';
import { BoolParam } from './params.ts';

const PredictQuery = Type.Object({
  search_input: Type.Array(Type.String(), {
    description: `Molecules (SMILES), repeated parameter; at most ${MAX_PREDICT_MOLECULES}`,
  }),
  descriptors: BoolParam(true, 'Add the 11 descriptors'),
  properties: BoolParam(true, 'Add the 22 predicted ADMET properties and the applicability-domain flags'),
  filename: Type.String({
    default: 'properties_and_descriptors',
    description:
      "Also write the table as CSV to exports/<filename>.csv in your file area (name sanitised); '' writes none. The path and URL are in the x-export-path and x-export-url headers.",
  }),
});

const Cell = Type.Union([
  Type.String(),
  Type.Number(),
  Type.Boolean(),
  Type.Null(),
  Type.Array(Type.String()),
]);
const PredictTableSchema = Type.Record(Type.String(), Type.Array(Cell), {
  description:
    'Column-oriented: every value is a list with one entry per search_input, in input order. Columns: smiles (canonical; null when unparsable), search_input, the 22 ADMET keys (properties=true), the 11 descriptors (descriptors=true), in_domain (true when no model flags the molecule) and admet_out_of_domain (names of the endpoints whose applicability domain excludes it) with properties=true, and error (why a row has no values, else null).',
});

const NumberMap = Type.Record(Type.String(), Type.Union([Type.Number(), Type.Null()]));

/** GET /predict, /predict_array and GET /exports/{filename} over the ADMET service. */
export function registerPredictRoutes(app: App, admet: AdmetService): void {
  const tags = ['legacy predict'];
  app.get(
    '/predict',
    {
      schema: {
        tags,
        summary: 'Predicted ADMET properties and descriptors of one molecule',
        querystring: Type.Object({
          search_input: Type.String({ description: 'The molecule (SMILES)' }),
          descriptors: BoolParam(true, 'Add the 11 descriptors'),
          properties: BoolParam(true, 'Add the 22 predicted ADMET properties and the applicability domain'),
        }),
        response: {
          200: Type.Object(
            {
              smiles: Type.String(),
              canonical_smiles: Type.String(),
              properties: Type.Optional(NumberMap),
              descriptors: Type.Optional(NumberMap),
              in_domain: Type.Optional(Type.Boolean()),
              out_of_domain: Type.Optional(Type.Array(Type.String())),
            },
            {
              examples: [
                {
                  smiles: 'CC(=O)Oc1ccccc1C(=O)O',
                  canonical_smiles: 'CC(=O)Oc1ccccc1C(=O)O',
                  properties: { ames: 0.12, bbb_martins: 0.71 },
                  descriptors: { molecular_weight: 180.159 },
                  in_domain: true,
                  out_of_domain: [],
                },
              ],
            },
          ),
        },
      },
    },
    async (request) => {
      const q = request.query;
      return admet.predictOne(request.account.id, {
        smiles: q.search_input,
        descriptors: q.descriptors,
        properties: q.properties,
      });
    },
  );
  app.get(
    '/predict_array',
    {
      schema: {
        tags,
        summary: 'Predicted ADMET properties and descriptors of molecules',
        querystring: PredictQuery,
        response: { 200: PredictTableSchema },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const r = await admet.predictArray(request.account.id, {
        smiles: q.search_input,
        descriptors: q.descriptors,
        properties: q.properties,
        filename: q.filename,
      });
      if (r.file) reply.header('x-export-path', r.file.path).header('x-export-url', r.file.url);
      return r.table;
    },
  );
  app.get(
    '/exports/:filename',
    {
      schema: {
        tags,
        summary: 'A CSV export of /predict_array from your file area',
        params: Type.Object({ filename: Type.String() }),
      },
    },
    async (request, reply) => {
      const f = await admet.exportFile(request.account.id, request.params.filename);
      reply.header('content-type', 'text/csv; charset=utf-8');
      reply.header('content-disposition', `attachment; filename="${f.filename}"`);
      reply.header('content-length', String(f.bytes));
      return reply.send(f.stream);
    },
  );
}
