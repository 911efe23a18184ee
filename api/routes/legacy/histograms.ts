/**
 * GET /histograms (similarity and property columns over a finished job's results) and
 * GET /property_histograms (numeric columns over a whole database): numpy's bins, counts a plot
 * draws directly (docs/operations.md).
 */
import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { validationError } from '../../../platform/errors.ts';
import { ANALYSIS_LIMITS, type AnalysisService } from '../../services/analysis.ts';
import { ex, TAGS } from './analysis-params.ts';

const HistogramSchema = Type.Object({
  edges: Type.Array(Type.Number(), { description: 'bins + 1 increasing edges (numpy.linspace)' }),
  counts: Type.Array(Type.Number(), {
    description: 'numpy.histogram counts; the last bin includes its edge',
  }),
  missing: Type.Integer({ description: 'null / NaN values' }),
  below: Type.Integer(),
  above: Type.Integer(),
  total: Type.Integer(),
});

const binParams = {
  bins: Type.Integer({ default: 20, description: `Equal-width bins (1-${ANALYSIS_LIMITS.maxBins})` }),
  edges: Type.Optional(Type.Array(Type.Number(), { description: 'Explicit bin edges, strictly increasing' })),
};

function checkBins(bins: number): void {
  if (!(Number.isInteger(bins) && bins >= 1 && bins <= ANALYSIS_LIMITS.maxBins))
    throw validationError(
      ['query', 'bins'],
      `must be an integer from 1 to ${ANALYSIS_LIMITS.maxBins}`,
      'value_error.invalid_parameter',
    );
}

const example = (name: string) => ({
  rows: 3,
  histograms: {
    [name]: { edges: [0, 0.5, 1], counts: [1, 2], missing: 0, below: 0, above: 0, total: 3 },
  },
});

/** The histogram routes over the analysis service. */
export function registerHistogramRoutes(app: App, analysis: AnalysisService): void {
  app.get(
    '/histograms',
    {
      schema: {
        tags: TAGS.histograms,
        summary: "Histograms of similarity and property columns over a finished job's results",
        querystring: Type.Object({
          job_name: Type.String(),
          columns: Type.Array(Type.String(), {
            default: ['similarity'],
            description: 'similarity and any of the 33 property columns of /get_molsearch_page',
          }),
          ...binParams,
          sim_th: Type.Optional(Type.Number({ description: 'Only rows at or above this similarity' })),
        }),
        response: {
          200: ex(
            Type.Object({
              job_name: Type.String(),
              rows: Type.Integer(),
              histograms: Type.Record(Type.String(), HistogramSchema),
            }),
            { job_name: 'job_01JD6N0F7W5XQ8ZB9V2T3K4M5P', ...example('similarity') },
          ),
        },
      },
    },
    async (request) => {
      const q = request.query;
      checkBins(q.bins);
      return analysis.results.jobHistograms(request.account.id, {
        jobName: q.job_name,
        columns: [...new Set(q.columns)],
        bins: q.bins,
        edges: q.edges,
        simTh: q.sim_th,
      });
    },
  );

  app.get(
    '/property_histograms',
    {
      schema: {
        tags: TAGS.histograms,
        summary: 'Histograms of descriptor, price and ADMET columns over a whole database',
        querystring: Type.Object({
          db_name: Type.String(),
          properties: Type.Array(Type.String(), {
            default: ['molecular_weight'],
            description: 'Numeric catalog columns (the 11 descriptors, price, the 22 ADMET predictions)',
          }),
          ...binParams,
          bins: Type.Integer({ default: 50, description: `Equal-width bins (1-${ANALYSIS_LIMITS.maxBins})` }),
        }),
        response: {
          200: ex(
            Type.Object({
              db_name: Type.String(),
              rows: Type.Integer(),
              histograms: Type.Record(Type.String(), HistogramSchema),
            }),
            { db_name: 'zinc15_sample', ...example('molecular_weight') },
          ),
        },
      },
    },
    async (request) => {
      const q = request.query;
      checkBins(q.bins);
      return analysis.results.propertyHistograms({
        dbName: q.db_name,
        properties: [...new Set(q.properties)],
        bins: q.bins,
        edges: q.edges,
      });
    },
  );
}
