/** Types the routes share: the app with the TypeBox type provider, so handlers get typed inputs. */
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';

/** The Fastify instance routes register on: params, query strings, headers and bodies typed from their TypeBox schemas. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * For a route whose body schema documents a document checked field by field by its service (the
 * run and selection documents: every problem reported with its JSON path, defaults applied during
 * normalization so the hash is stable). Ajv must neither reject first with coarser messages nor
 * insert defaults, so this route's parts are not validated by the schema.
 */
export const documentedOnly = () => () => true;
