import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { documentedOnly } from '../../types.ts';
import type { SelectionsService } from '../../services/selections.ts';
import { SelectionDocumentSchema } from '../../schemas/documents.ts';
import { Open, errorResponses } from './common.ts';

/** POST /api/v2/selections:validate, :estimate and /api/v2/selections. */
export function registerV2SelectionRoutes(app: App, selections: SelectionsService): void {
  // The selection document is documented by its schema and checked by the service (field-precise issues).
  const route = { validatorCompiler: documentedOnly };
  // '::' is Fastify's escape for a literal ':' in a path.
  app.post(
    '/api/v2/selections::validate',
    {
      ...route,
      schema: {
        tags: ['v2'],
        summary: 'Validate and normalize a selection; answers its hash and how each constraint executes',
        body: SelectionDocumentSchema,
        response: {
          200: Open({
            valid: Type.Boolean(),
            selection_hash: Type.String(),
            normalized_selection: Type.Any(),
            constraint_execution: Type.Array(Type.Any()),
            warnings: Type.Array(Type.Any()),
          }),
          ...errorResponses,
        },
      },
    },
    (request) => selections.validate(request.body, request.id),
  );

  app.post(
    '/api/v2/selections::estimate',
    {
      ...route,
      schema: {
        tags: ['v2'],
        summary: 'Estimate the work of a selection and whether it runs synchronously or as a run',
        body: SelectionDocumentSchema,
        response: {
          200: Open({ selection_hash: Type.String(), execution_tier: Type.String(), work: Type.Any() }),
          ...errorResponses,
        },
      },
    },
    (request) => selections.estimate(request.body, request.id),
  );

  app.post(
    '/api/v2/selections',
    {
      ...route,
      schema: {
        tags: ['v2'],
        summary: 'Execute a selection synchronously (limit ≤ 200)',
        body: SelectionDocumentSchema,
        response: {
          200: Open({
            object: Type.Literal('selection'),
            id: Type.String(),
            status: Type.String(),
            selection_hash: Type.String(),
            results: Type.Array(Type.Any()),
          }),
          ...errorResponses,
        },
      },
    },
    (request) => selections.execute(request.body, request.id),
  );
}
