/**
 * Legacy synthon-space jobs (POST /submit_synthongpt_job): every parameter is judged now (the
 * query as SMILES, or SMILES/SMARTS in substructure mode; the scorer; the SMARTS prefilter by id,
 * label or SMARTS; the space), then a job row and a synthonJobWorkflow whose id is the job name.
 * Status, info, paging, downloads and revoke are the legacy job service's (api/services/jobs.ts).
 */
import type { WorkflowClient } from '@temporalio/client';
import { DomainError, invalidSmiles, validationError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Jobs } from '../../store/jobs.ts';
import { getRDKit, parseMolecule, structurePrecheck } from '../../engine/chem/index.ts';
import { comingNote } from './pending-databases.ts';
import { moleculeToBase64, type Molecule3d } from '../../engine/catalog/three-d-schema.ts';
import { functionalGroups } from '../../engine/filters/index.ts';
import { queryMol } from '../../engine/synthons/job-search.ts';
import {
  chem3dQueue,
  JOB_WORKFLOWS,
  largeSpaceScanQueue,
  taskQueue,
  type SynthonJobInput,
} from '../../workflows/contracts.ts';
import { LARGE_SPACE_PRODUCTS } from '../../engine/synthons/space-pool.ts';
import { newJobName } from './jobs-ids.ts';
import { MAX_JOB_NEIGHBORS } from './jobs.ts';
import type { SearchService } from './search-service.ts';

export interface SynthonJobRequest {
  search_input: string;
  db_name?: string;
  search_quality: string;
  include_properties: boolean;
  include_metadata: boolean;
  include_synthons: boolean;
  synthon_scorer: string;
  /** similarity, substructure or superstructure (the route's schema checked it). */
  search_mode: string;
  structure_match_mode: string;
  smarts_prefilter_pattern_id: string;
  smarts_prefilter_pattern_label: string;
  smarts_prefilter_pattern_smarts: string;
  smarts_prefilter_mode: string;
  synthon_search_backend: string;
  sample_size: number;
}

/** Which parameters with defaults the client actually sent. */
export interface SentParams {
  searchQuality: boolean;
  sampleSize: boolean;
  /** The query parameter naming the space (/submit_molsearch's is db_names); default db_name. */
  dbField?: string;
}

/** The synthon_scorer values a similarity job on a synthon space serves. */
export const SPACE_SCORERS: readonly string[] = ['morgan', 'shape', 'esp'];

/**
 * 3D scorers (shape, esp): the Morgan proposal's best `k × SYNTHON_3D_MULTIPLIER` products are
 * embedded and scored exactly, at most SYNTHON_3D_MAX_SHORTLIST of them (and never fewer than k);
 * at most SYNTHON_3D_MAX_HITS hits per job, as each product costs an embedding.
 */
export const SYNTHON_3D_MULTIPLIER = 3;
export const SYNTHON_3D_MAX_SHORTLIST = 1000;
export const SYNTHON_3D_MAX_HITS = 1000;

export function synthon3dShortlist(k: number): number {
  return Math.max(k, Math.min(k * SYNTHON_3D_MULTIPLIER, SYNTHON_3D_MAX_SHORTLIST));
}

/** search_quality as the wanted hit count: the numbers as they are, the named qualities as 100/1000/10000. */
export const SYNTHON_QUALITY_HITS: Record<string, number> = {
  fast: 100,
  accurate: 1000,
  very_accurate: 10_000,
  '100': 100,
  '1000': 1000,
  '10000': 10_000,
};

export interface SynthonJobServiceDeps {
  search: SearchService;
  jobs?: Jobs;
  workflows?: WorkflowClient;
  taskQueuePrefix?: string;
  log?: Logger;
  /** Slices a job scans at once. */
  concurrency?: number;
  /** Spaces with at least this many products scan on the large-space queue (tests lower it). */
  largeProducts?: number;
  /**
   * The 3D path's query check (shape search's checkQuery): the query's conformers, passed on to
   * the job so that it is embedded once; 422 naming `loc` when the chem3d worker cannot embed the
   * query, 503 + Retry-After when no worker answers. Absent: 3D scorers are 503.
   */
  checkQuery3d?: (smiles: string, loc: (string | number)[]) => Promise<Molecule3d>;
}

/** The wanted hit count: search_quality when sent, else sample_size (older clients), else 100. */
export function wantedHits(
  q: Pick<SynthonJobRequest, 'search_quality' | 'sample_size'>,
  sent: SentParams,
): number {
  if (sent.searchQuality || !sent.sampleSize) return SYNTHON_QUALITY_HITS[q.search_quality] ?? 100;
  return q.sample_size;
}

/** The prefilter SMARTS: the SMARTS itself, else the predefined pattern named by id, else by label. */
function prefilterSmarts(q: SynthonJobRequest): string | undefined {
  if (q.smarts_prefilter_pattern_smarts.trim()) return q.smarts_prefilter_pattern_smarts.trim();
  const groups = functionalGroups();
  const id = q.smarts_prefilter_pattern_id.trim();
  if (id) {
    const g = groups.find((p) => p.id === id);
    if (!g)
      throw validationError(
        ['query', 'smarts_prefilter_pattern_id'],
        `unknown pattern id ${JSON.stringify(id)}; GET /smarts_patterns lists them`,
      );
    return g.smarts;
  }
  const label = q.smarts_prefilter_pattern_label.trim().toLowerCase();
  if (label) {
    const g = groups.find((p) => p.label.toLowerCase() === label);
    if (!g)
      throw validationError(
        ['query', 'smarts_prefilter_pattern_label'],
        `unknown pattern label ${JSON.stringify(q.smarts_prefilter_pattern_label)}; GET /smarts_patterns lists them`,
      );
    return g.smarts;
  }
  return undefined;
}

export function createSynthonJobService(deps: SynthonJobServiceDeps) {
  const { search } = deps;

  /** The space a job runs on: db_name when it names one, else the largest space. */
  function spaceOf(dbName: string | undefined, field = 'db_name'): string {
    const spaces = search.databases().filter((d) => d.kind === 'synthon');
    const coming = dbName?.trim() ? search.notReady?.(dbName.trim()) : defaultComing(spaces, field);
    if (coming) throw validationError(['query', field], coming, 'value_error.not_ready');
    if (!spaces.length)
      throw new DomainError('capability_unavailable', 'no synthon space is installed on this server', {
        issues: [
          {
            loc: ['query', field],
            msg: 'synthon-space jobs need a synthon database and none is installed; use /submit_molsearch for enumerated catalogs',
            type: 'value_error.unavailable',
          },
        ],
      });
    if (!dbName?.trim()) return [...spaces].sort((a, b) => b.molecules - a.molecules)[0].id;
    const s = spaces.find((d) => d.id === dbName.trim());
    if (s) return s.id;
    const isCatalog = search.databases().some((d) => d.id === dbName.trim());
    throw validationError(
      ['query', field],
      `${isCatalog ? 'not a synthon space' : 'unknown synthon database'} ${JSON.stringify(dbName)}; synthon databases: ${spaces
        .map((d) => d.id)
        .join(', ')}${isCatalog ? ' (enumerated catalogs are searched by /submit_molsearch)' : ''}` +
        comingNote(search.pending?.() ?? []),
    );
  }

  /**
   * No db_name: the default is the largest space, and one still being built would be it. Say so
   * rather than search a smaller space the client did not choose (a new user's first minutes).
   */
  function defaultComing(
    spaces: Array<{ id: string; molecules: number }>,
    field: string,
  ): string | undefined {
    const largest = Math.max(0, ...spaces.map((d) => d.molecules));
    const building = (search.pending?.() ?? [])
      .filter((p) => p.kind === 'synthon' && p.build.status === 'building' && p.molecules > largest)
      .sort((a, b) => b.molecules - a.molecules)[0];
    if (!building) return undefined;
    const ready = spaces.map((d) => d.id).join(', ') || 'none yet';
    return `${field} not sent, and the default (largest) space is not ready: ${building.build.message}; or name a ready synthon space (${ready})`;
  }

  const large = (space: string): boolean =>
    (search.databases().find((d) => d.id === space)?.molecules ?? 0) >=
    (deps.largeProducts ?? LARGE_SPACE_PRODUCTS);

  return {
    /** Validates a synthon job, records it and starts its workflow; answers the job name. */
    async submit(accountId: string, q: SynthonJobRequest, sent: SentParams): Promise<string> {
      const rd = await getRDKit();
      const mode = q.search_mode as SynthonJobInput['mode'];
      const query = q.search_input.trim();
      if (!query) throw validationError(['query', 'search_input'], 'empty SMILES');
      if (mode === 'substructure') {
        const bad = structurePrecheck(query);
        if (bad) throw invalidSmiles(['query', 'search_input'], q.search_input, `SMILES/SMARTS (${bad})`);
        const m = queryMol(rd, query, true);
        if (!m) throw invalidSmiles(['query', 'search_input'], q.search_input, 'SMILES/SMARTS');
        m.delete();
      } else {
        const parsed = parseMolecule(rd, query);
        if ('error' in parsed)
          throw invalidSmiles(['query', 'search_input'], q.search_input, `SMILES (${parsed.error})`);
      }
      const smarts = prefilterSmarts(q);
      if (smarts) {
        const bad = structurePrecheck(smarts);
        if (bad) throw invalidSmiles(['query', 'smarts_prefilter_pattern_smarts'], smarts, `SMARTS (${bad})`);
        const p = queryMol(rd, smarts, true);
        if (!p) throw invalidSmiles(['query', 'smarts_prefilter_pattern_smarts'], smarts, 'SMARTS');
        p.delete();
      }
      const space = spaceOf(q.db_name, sent.dbField);
      const k = wantedHits(q, sent);
      if (k > MAX_JOB_NEIGHBORS)
        throw validationError(['query', 'sample_size'], `at most ${MAX_JOB_NEIGHBORS} hits per job`);
      const metric3d =
        mode === 'similarity' && (q.synthon_scorer === 'shape' || q.synthon_scorer === 'esp')
          ? q.synthon_scorer
          : undefined;
      let query3d: Molecule3d | undefined;
      if (metric3d) {
        if (k > SYNTHON_3D_MAX_HITS)
          throw validationError(
            ['query', sent.searchQuality || !sent.sampleSize ? 'search_quality' : 'sample_size'],
            `synthon_scorer=${metric3d} returns at most ${SYNTHON_3D_MAX_HITS} hits (each product is embedded in 3D); send search_quality=100 or 1000, or synthon_scorer=morgan`,
          );
        if (!deps.checkQuery3d)
          throw new DomainError(
            'unavailable',
            `3D scoring (synthon_scorer=${metric3d}) is unavailable: no 3D worker is configured; synthon_scorer=morgan still works`,
            { retryAfterSeconds: 30 },
          );
        query3d = await deps.checkQuery3d(query, ['query', 'search_input']);
      }
      if (!deps.jobs || !deps.workflows || !deps.taskQueuePrefix)
        throw new DomainError('unavailable', 'the job service is not running on this server');
      const jobName = newJobName();
      await deps.jobs.create({
        id: jobName,
        accountId,
        kind: 'synthon',
        params: { ...q, db_name: space, n_neighbors: k, search_type: 'synthongpt', db_names: [space] },
      });
      const prefix = deps.taskQueuePrefix;
      const input: SynthonJobInput = {
        jobName,
        space,
        mode,
        query,
        k,
        matchMode: q.structure_match_mode === 'exact' ? 'exact' : 'fuzzy',
        prefilter: smarts
          ? { smarts, mode: q.smarts_prefilter_mode === 'exclude' ? 'exclude' : 'include' }
          : undefined,
        descriptors: q.include_properties,
        queues: {
          // Slices of a large space go to their own queue, so they never take the slots that
          // jobs on small spaces need (contracts.ts largeSpaceScanQueue).
          scan: large(space) ? largeSpaceScanQueue(prefix) : taskQueue(prefix, 'scan'),
          export: taskQueue(prefix, 'export'),
        },
        concurrency: deps.concurrency,
        threeD: metric3d
          ? {
              metric: metric3d,
              shortlist: synthon3dShortlist(k),
              chem3dQueue: chem3dQueue(prefix, 'catalog'),
              queryQueue: chem3dQueue(prefix, 'query'),
              query: query3d && moleculeToBase64(query3d),
            }
          : undefined,
      };
      try {
        await deps.workflows.start(JOB_WORKFLOWS.synthon, {
          workflowId: jobName,
          taskQueue: taskQueue(prefix, 'orchestration'),
          args: [input],
        });
      } catch (err) {
        await deps.jobs.update(jobName, { status: 'FAILURE', error: 'the job could not be started' });
        throw new DomainError('unavailable', 'the job service is unavailable; retry later', { cause: err });
      }
      deps.log?.info({ job: jobName, space, mode, k }, 'synthon job submitted');
      return jobName;
    },
  };
}

export type SynthonJobService = ReturnType<typeof createSynthonJobService>;
