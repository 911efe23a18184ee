/**
 * Databases that are coming but cannot be searched yet: synthon spaces built in the background
 * after the service starts (the 10^9-product default space for its first minutes), or whose build
 * failed. Every listing (/available_databases, /available_databases_full, /api/v2/catalog) shows
 * them with `status`, `searchable: false` and a `build` block; a search naming one answers 422
 * value_error.not_ready with the same numbers (spaceNotReady, from the same build record).
 *
 * Listing them (rather than leaving them out until they are ready) follows the usual practice of
 * resource listings (a table, index or instance is listed while it is being created, with its
 * state): clients test `name in body` before searching (client-contract.md), and then get a 422
 * saying when the database will be there instead of deciding for themselves that it does not exist.
 */
import type { BackgroundBuild } from '../../engine/synthons/bundled.ts';

/** A build's state as the listings give it (snake_case, as the listing bodies). */
export interface BuildState {
  status: 'building' | 'failed';
  started_at: string;
  /**
   * Of the build's work (rows parsed, and pairs of ring cores weighted by their cost); null before
   * the builder's first progress line (~5 s in).
   */
  percent: number | null;
  rows_done: number | null;
  rows_total: number | null;
  /** The builder's own estimate of the time left; null until known. */
  eta_seconds: number | null;
  /** Why the build failed (status `failed`). */
  error?: string;
  /** What a search naming the database is answered (the 422's text). */
  message: string;
}

export interface PendingDatabase {
  id: string;
  name: string;
  vendor: string;
  website: string;
  license?: string;
  kind: 'synthon';
  /** Products of the built space (bundled.json `products`); 0 when not known. */
  molecules: number;
  build: BuildState;
}

/** Percent done and time left of a build, from its last progress line (undefined before one). */
export function buildProgress(b: BackgroundBuild) {
  const p = b.progress;
  if (!p) return undefined;
  return {
    percent: Math.floor(p.percent),
    rows_done: p.rows_done,
    rows_total: p.rows_total,
    eta_seconds: p.eta_seconds,
  };
}

/**
 * Why space `id` cannot be searched yet, from the background builds: still building (with its
 * progress and an estimate) or its build failed; undefined when no build names it.
 */
export function spaceNotReady(builds: readonly BackgroundBuild[], id: string): string | undefined {
  const b = builds.find((x) => x.id === id);
  if (!b || b.status === 'ready') return undefined;
  if (b.status === 'failed')
    return `synthon space ${id} could not be built (${b.error ?? 'unknown error'}); see the service log`;
  const p = buildProgress(b);
  const done = p
    ? `: ${p.percent}% done (${p.rows_done} of its ${p.rows_total} synthon rows read), about ${Math.max(1, Math.ceil(p.eta_seconds / 60))} min to go`
    : '';
  return `synthon space ${id} is being built in the background since ${b.startedAt}${done}; retry when it is ready (GET /available_databases_full and GET /health show the progress)`;
}

/** The builds that are not served yet (`served` says which ids are), as listing entries. */
export function pendingSpaces(
  builds: readonly BackgroundBuild[],
  served: (id: string) => boolean,
): PendingDatabase[] {
  return builds
    .filter((b) => b.status !== 'ready' && !served(b.id))
    .map((b) => {
      const p = buildProgress(b);
      return {
        id: b.id,
        name: b.info?.name ?? b.id,
        vendor: b.info?.vendor ?? '',
        website: b.info?.website ?? '',
        license: b.info?.license,
        kind: 'synthon' as const,
        molecules: b.info?.products ?? 0,
        build: {
          status: b.status as BuildState['status'],
          started_at: b.startedAt,
          percent: p?.percent ?? null,
          rows_done: p?.rows_done ?? null,
          rows_total: p?.rows_total ?? null,
          eta_seconds: p?.eta_seconds ?? null,
          ...(b.error ? { error: b.error } : {}),
          message: spaceNotReady(builds, b.id)!,
        },
      };
    });
}

/**
 * The tail of an "unknown database" message naming the databases that are coming (a user trial
 * misspelt the default space while it was built, and the list of available ones did not name it).
 */
export function comingNote(pending: readonly PendingDatabase[]): string {
  if (!pending.length) return '';
  const state = (p: PendingDatabase) =>
    p.build.status === 'failed'
      ? 'build failed'
      : `being built${p.build.percent === null ? '' : `, ${p.build.percent}% done`}`;
  return `; not ready yet: ${pending.map((p) => `${p.id} (${state(p)})`).join(', ')}`;
}
