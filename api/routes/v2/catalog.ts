import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import type { V2SearchService } from '../../services/v2-search.ts';
import { Open, errorResponses } from './common.ts';

const Library = Open({
  database_id: Type.String(),
  name: Type.String(),
  product_count: Type.Integer(),
  capabilities: Open({
    search: Type.Boolean(),
    search_cheese: Type.Array(Type.String()),
    search_substructure: Type.Boolean(),
    sample: Type.Boolean(),
    selections: Type.Boolean(),
  }),
  pricing: Open({
    available: Type.Boolean(),
    currency: Type.Union([Type.String(), Type.Null()]),
    constraints: Type.Array(Type.String(), {
      description:
        'Price constraints selections accept here: max_price (constraints.price) where products are priced',
    }),
  }),
});

/** GET /api/v2/catalog: the libraries served, with capabilities and pricing availability. */
export function registerV2CatalogRoutes(app: App, search: V2SearchService): void {
  app.get(
    '/api/v2/catalog',
    {
      schema: {
        tags: ['v2'],
        summary: 'Libraries with their capabilities and pricing availability',
        response: {
          200: Type.Object({ libraries: Type.Array(Library) }, { additionalProperties: true }),
          ...errorResponses,
        },
      },
    },
    () => search.catalog(),
  );
}
