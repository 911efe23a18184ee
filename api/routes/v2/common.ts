import type { FastifyRequest } from 'fastify';
import { Type, type TProperties } from '@sinclair/typebox';
import { DomainError, invalidSmiles, validationError } from '../../../platform/errors.ts';
import { getRDKit, parseMolecule, type ParsedMolecule } from '../../../engine/chem/index.ts';
import type { Library, LibraryRegistry, SelectionPool } from '../../../engine/selection/index.ts';
import type { RunsRepository } from '../../../store/runs.ts';
import type { ObjectStore } from '../../../platform/object-store/index.ts';
import type { RunService } from '../../v2/runs-service.ts';
import type { SubstructureRunner } from '../../../engine/substructure/index.ts';

/** What the v2 routes close over. */
export interface V2Deps {
  libraries: LibraryRegistry;
  runs: RunsRepository;
  runService: RunService;
  objects: ObjectStore;
  substructure: SubstructureRunner;
  /** Worker threads that execute sync selections off the event loop (absent: in this thread, smaller cap). */
  selectionPool?: SelectionPool;
  /** Prefix of links in run resources ('' gives relative links). */
  publicUrl?: string;
  /** How often the SSE stream polls the store for new events (ms, default 250). */
  eventPollMs?: number;
  /** How often expired runs are purged (ms, default 1 h; 0 disables). */
  purgeIntervalMs?: number;
}

export const ENGINE_VERSION = 'molsearch-engine/1';
export const MAX_SYNC_LIMIT = 200;

/** The error envelope, for response schemas. */
export const ErrorSchema = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    request_id: Type.String(),
    retryable: Type.Boolean(),
    details: Type.Optional(Type.Array(Type.Any())),
  }),
});
export const WarningSchema = Type.Object({ code: Type.String(), message: Type.String() });
/** v2 bodies are open objects in the response: clients keep unknown fields. */
export const Open = <T extends TProperties>(props: T, description?: string) =>
  Type.Object(props, { additionalProperties: true, description });

export const errorResponses = {
  401: ErrorSchema,
  404: ErrorSchema,
  409: ErrorSchema,
  413: ErrorSchema,
  422: ErrorSchema,
  429: ErrorSchema,
  503: ErrorSchema,
};

/** The caller's account id (every v2 route is authenticated). */
export function accountOf(request: FastifyRequest): string {
  if (!request.account)
    throw new DomainError('unauthorized', 'API key missing: send it in the x-api-key header');
  return request.account.id;
}

/** The library named `id`, or a 422 naming the field and the available ids. */
export async function libraryOr422(
  libraries: LibraryRegistry,
  id: string,
  loc: (string | number)[] = ['body', 'database_id'],
): Promise<Library> {
  const lib = await libraries.get(id);
  if (lib) return lib;
  const ids = (await libraries.list()).map((l) => l.info.database_id);
  throw validationError(
    loc,
    `unknown database ${JSON.stringify(id)}; available: ${ids.join(', ')}`,
    'value_error.database',
  );
}

/** Parses a query SMILES or answers 422 invalid_smiles naming the field. */
export async function parseQuery(
  smiles: string,
  loc: (string | number)[] = ['body', 'query_smiles'],
): Promise<ParsedMolecule> {
  const p = parseMolecule(await getRDKit(), smiles);
  if ('error' in p) throw invalidSmiles(loc, smiles);
  return p;
}

export const round3 = (ms: number) => Math.round(ms * 1000) / 1000;
