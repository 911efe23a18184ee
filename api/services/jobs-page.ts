/**
 * Paging job results: the prop_ranges check (unknown keys are a 422 that lists the valid keys),
 * an LRU of decoded results (paging 100 pages decodes the Arrow file once), and the
 * column-oriented page of the client contract.
 */
import { createLru } from '../../platform/lru.ts';
import { validationError } from '../../platform/errors.ts';
import type { ObjectStore } from '../../platform/object-store/index.ts';
import {
  decodeJobResult,
  PROPERTY_KEYS,
  resultView,
  type JobResult,
  type ResultFilter,
  type ResultView,
} from '../../engine/export/index.ts';
import { DEFAULT_RANGE, round5 } from '../../engine/export/result-view.ts';

export type PropRanges = Record<string, { min: number; max: number }>;

/** Validates a prop_ranges body member: known keys only, numeric min <= max, spec defaults filled in. */
export function checkPropRanges(
  raw: unknown,
  loc: (string | number)[] = ['body', 'prop_ranges'],
): PropRanges {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw validationError(loc, 'must be an object mapping a property key to {min, max}');
  const out: PropRanges = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!PROPERTY_KEYS.includes(key))
      throw validationError(
        [...loc, key],
        `unknown property key ${JSON.stringify(key)}; valid keys: ${PROPERTY_KEYS.join(', ')}`,
      );
    const v = (value ?? {}) as Record<string, unknown>;
    if (typeof v !== 'object' || Array.isArray(v))
      throw validationError([...loc, key], 'must be an object {min, max}');
    const num = (x: unknown, def: number, name: string): number => {
      if (x === undefined || x === null) return def;
      const n = typeof x === 'string' && x.trim() !== '' ? Number(x) : x;
      if (typeof n !== 'number' || !Number.isFinite(n))
        throw validationError([...loc, key, name], 'must be a number');
      return n;
    };
    const min = num(v.min, DEFAULT_RANGE.min, 'min');
    const max = num(v.max, DEFAULT_RANGE.max, 'max');
    if (min > max) throw validationError([...loc, key], `min (${min}) is greater than max (${max})`);
    out[key] = { min, max };
  }
  return out;
}

/** Bytes a decoded result holds in memory (columns exactly, strings estimated). */
export function jobResultBytes(r: JobResult): number {
  let n = r.similarity.byteLength;
  for (const p of r.props) n += p.byteLength;
  if (r.threeD) n += r.threeD.shape.byteLength * 2 + r.threeD.queryConf.byteLength;
  // Strings: V8's header (~24 B) plus one byte a character (SMILES and ids are ASCII).
  for (const col of [r.smiles, r.id, r.database, r.dbId]) for (const v of col) n += 24 + (v?.length ?? 0);
  return n;
}

/**
 * An LRU of decoded job results keyed by object key (results never change once written), bounded
 * by bytes (`maxBytes`, RESULT_CACHE_BYTES): a 100,000-row result with properties is ~35 MB.
 */
export function createResultCache(objects: ObjectStore, maxBytes = 256 * 2 ** 20) {
  const entries = createLru<Promise<JobResult>>({
    name: 'job_results',
    maxBytes,
    maxEntries: 64,
    size: jobResultBytes,
  });
  return {
    get(key: string): Promise<JobResult> {
      let p = entries.get(key);
      if (p) return p;
      p = objects.getBytes(key).then(decodeJobResult);
      entries.set(key, p);
      return p;
    },
    stats: () => entries.stats(),
  };
}
export type ResultCache = ReturnType<typeof createResultCache>;

export interface PageRequest extends ResultFilter {
  pageNum: number;
  pageSize: number;
  includeProperties: boolean;
  /** Adds product_id, reaction_id and synthons ([{slot, synthon_id, smiles}]; [] and null for catalog rows). */
  includeSynthons?: boolean;
  /** When non-empty, only these ids are paged. */
  neighborIds: string[];
}

export type Page = Record<string, unknown[]>;

/** The empty page: every column present with no rows (a job that is still running). */
export function emptyPage(includeProperties: boolean, includeSynthons = false, threeD = false): Page {
  const page: Page = { smiles: [], id: [], database: [], db_id: [], similarity: [], in_prop_range: [] };
  // 3D results: both scores at the best alignment, as /molsearch names them.
  if (threeD) Object.assign(page, { Shapesim: [], Espsim: [] });
  if (includeProperties) for (const k of PROPERTY_KEYS) page[k] = [];
  if (includeSynthons) Object.assign(page, { product_id: [], reaction_id: [], synthons: [] });
  return page;
}

/** The rows of one page: positions in the result and their in-range flags (neighbor_ids applied). */
function pageRows(
  r: JobResult,
  req: PageRequest,
  view: ResultView,
): { indices: Int32Array; flags: Uint8Array } {
  let indices = view.indices;
  let flags = view.inRange;
  if (req.neighborIds.length) {
    const wanted = new Set(req.neighborIds);
    const keep: number[] = [];
    for (let j = 0; j < indices.length; j++) if (wanted.has(r.id[indices[j]])) keep.push(j);
    indices = Int32Array.from(keep, (j) => view.indices[j]);
    flags = Uint8Array.from(keep, (j) => view.inRange[j]);
  }
  const start = Math.min(indices.length, req.pageNum * req.pageSize);
  const end = Math.min(indices.length, start + req.pageSize);
  return { indices: indices.subarray(start, end), flags: flags.subarray(start, end) };
}

/** One page (0-based) of a result, column-oriented, filters applied on read. */
export function buildPage(r: JobResult, req: PageRequest, view: ResultView = resultView(r, req)): Page {
  const page = emptyPage(req.includeProperties, req.includeSynthons, r.threeD !== undefined);
  const { indices, flags } = pageRows(r, req, view);
  const props = req.includeProperties ? PROPERTY_KEYS.map((k, j) => ({ k, col: r.props[j] })) : [];
  for (let j = 0; j < indices.length; j++) {
    const i = indices[j];
    page.smiles.push(r.smiles[i]);
    page.id.push(r.id[i]);
    page.database.push(r.database[i]);
    page.db_id.push(r.dbId[i]);
    page.similarity.push(round5(r.similarity[i]));
    page.in_prop_range.push(flags[j] === 1);
    if (r.threeD) {
      // Rounded as `similarity` is: one of them is the similarity of a shape or ESP job.
      page.Shapesim.push(round5(r.threeD.shape[i]));
      page.Espsim.push(round5(r.threeD.esp[i]));
    }
    for (const p of props) {
      const v = p.col[i];
      page[p.k].push(Number.isNaN(v) ? null : v);
    }
    if (req.includeSynthons) {
      page.product_id.push(r.id[i]);
      page.reaction_id.push(r.synthon ? r.synthon.reactionId[i] : null);
      page.synthons.push(r.synthon?.synthons[i] ? JSON.parse(r.synthon.synthons[i]) : []);
    }
  }
  return page;
}

/** Strings JSON.stringify would escape; others are quoted as they are. */
const JSON_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function stringColumn(values: string[], indices: Int32Array): string {
  let out = '[';
  let prev: string | undefined;
  let prevJson = '';
  for (let j = 0; j < indices.length; j++) {
    const v = values[indices[j]];
    // Runs of one value (the database column) are quoted once.
    if (v !== prev) {
      prev = v;
      prevJson = JSON_ESCAPE.test(v) ? JSON.stringify(v) : '"' + v + '"';
    }
    out += j ? ',' + prevJson : prevJson;
  }
  return out + ']';
}

function numberColumn(col: Float64Array, indices: Int32Array, round: boolean): string {
  let out = '[';
  for (let j = 0; j < indices.length; j++) {
    const v = round ? round5(col[indices[j]]) : col[indices[j]];
    // As JSON.stringify: the shortest round-trip decimal, null for NaN and ±Infinity.
    const s = Number.isFinite(v) ? '' + v : 'null';
    out += j ? ',' + s : s;
  }
  return out + ']';
}

const PROPERTY_KEYS_JSON = PROPERTY_KEYS.map((k) => JSON.stringify(k));

/**
 * The page of buildPage as JSON text, byte for byte what JSON.stringify(buildPage(...)) gives,
 * built straight from the typed columns: no page object, no per-row allocation, about twice as
 * fast for a 1,000-row page with properties.
 */
export function pageJson(r: JobResult, req: PageRequest, view: ResultView = resultView(r, req)): string {
  const { indices, flags } = pageRows(r, req, view);
  let out =
    '{"smiles":' +
    stringColumn(r.smiles, indices) +
    ',"id":' +
    stringColumn(r.id, indices) +
    ',"database":' +
    stringColumn(r.database, indices);
  out +=
    ',"db_id":' +
    stringColumn(r.dbId, indices) +
    ',"similarity":' +
    numberColumn(r.similarity, indices, true) +
    ',"in_prop_range":[';
  for (let j = 0; j < flags.length; j++) out += (j ? ',' : '') + (flags[j] === 1 ? 'true' : 'false');
  out += ']';
  if (r.threeD)
    out +=
      ',"Shapesim":' +
      numberColumn(r.threeD.shape, indices, true) +
      ',"Espsim":' +
      numberColumn(r.threeD.esp, indices, true);
  if (req.includeProperties)
    for (let k = 0; k < PROPERTY_KEYS.length; k++)
      out += ',' + PROPERTY_KEYS_JSON[k] + ':' + numberColumn(r.props[k], indices, false);
  if (req.includeSynthons) {
    out += ',"product_id":' + stringColumn(r.id, indices) + ',"reaction_id":';
    out += r.synthon
      ? stringColumn(r.synthon.reactionId, indices)
      : '[' + Array(indices.length).fill('null').join(',') + ']';
    // The synthons column holds each row's JSON text as written by the job: spliced in as it is.
    let syn = '[';
    for (let j = 0; j < indices.length; j++)
      syn += (j ? ',' : '') + (r.synthon?.synthons[indices[j]] || '[]');
    out += ',"synthons":' + syn + ']';
  }
  return out + '}';
}
