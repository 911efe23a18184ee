import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { Open, errorResponses, type V2Deps } from './common.ts';

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
  pricing: Open({ available: Type.Boolean(), currency: Type.Union([Type.String(), Type.Null()]) }),
});

/** GET /api/v2/catalog: the libraries served, with capabilities and pricing availability. */
export function registerV2CatalogRoutes(app: FastifyInstance, deps: V2Deps): void {
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
    async () => {
      const libs = await deps.libraries.list();
      return {
        libraries: libs.map((l) => {
          const enumerated = l.info.kind === 'enumerated';
          const priced = Array.from({ length: Math.min(l.size, 1000) }, (_, i) => l.price(i)).some(
            (p) => p !== null,
          );
          return {
            database_id: l.info.database_id,
            name: l.info.name,
            vendor: l.info.vendor,
            website: l.info.website,
            contact: l.info.contact,
            kind: l.info.kind,
            release: l.info.release,
            database_release: l.info.release,
            product_count: l.size,
            capabilities: {
              search: true,
              search_cheese: [] as string[],
              search_substructure: enumerated,
              sample: true,
              selections: enumerated,
              predicted_properties: l.info.predicted_property_ids.length > 0,
            },
            pricing: { available: priced, currency: priced ? 'USD' : null },
          };
        }),
      };
    },
  );
}
