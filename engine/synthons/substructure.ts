/**
 * Substructure and superstructure search over a space without enumerating it.
 *
 * Substructure: the query is split across each reaction's slots (fragments.ts); a synthon passes a
 * slot when it contains that slot's fragment (element-and-topology skeleton, which zipping never
 * changes), decided without RDKit where possible: the build-time screen (sss-screen.ts) and element
 * counts rule synthons out, and the match runs on the SMILES text graph (skeleton-match.ts); both
 * screens are necessary conditions and the text match is exact, so they change cost, not results.
 * Candidates are the tuples of passing synthons, and each is assembled (RDKit molzip)
 * and matched against the whole query. Superstructure (the product inside the query): a synthon
 * passes when its skeleton, connectors as any atom, fits in the query. Both screens only drop
 * tuples that cannot match, so the hits equal brute force over the enumeration. `maxProducts`
 * (tuples assembled), `maxHits` and the deadline bound the work; `timedOut` and `coverage` (the
 * fraction of products decided, screened out or verified) say how far it got.
 */
import { DomainError } from '../../platform/errors.ts';
import { isWasmTrap, type RDKitModule, type RDKitMol } from '../chem/rdkit.ts';
import { smilesPrecheck } from '../chem/molecule.ts';
import { querySkeleton, skeletonQuery, skeletonSmarts, splitQuery, type Split } from './fragments.ts';
import { mayContain, mayFitIn, skeletonNeeds, smilesElementCounts, zCounts } from './element-counts.ts';
import type { SlotColumns } from './format.ts';
import { fragmentScreen, screenPasses } from './sss-screen.ts';
import { containsSkeleton, parseSkeletonSmarts, smilesSkeleton } from './skeleton-match.ts';
import { excludedAtLeast, lazyList, lazyTuples, type LazyList } from './lazy-box.ts';
import type { OpenSpace } from './space.ts';
import {
  createVerifier,
  synthonMols,
  type StructureMode,
  type SubstructureHit,
} from './substructure-verify.ts';

export type { StructureMode, SubstructureHit };

export interface SubstructureOptions {
  mode?: StructureMode;
  format?: 'smarts' | 'smiles';
  maxHits?: number;
  /** Tuples assembled and verified at most. */
  maxProducts?: number;
  timeoutMs?: number;
  /** Absolute deadline (Date.now() ms); the earlier of it and `timeoutMs` applies. */
  deadline?: number;
  /** Only these reactions (ids), as a job's slice; `coverage` is then over their products. */
  reactions?: ReadonlySet<string>;
  /** Stereo must match too (RDKit `useChirality`); default: ignored, RDKit's default. */
  chirality?: boolean;
  /**
   * Receives each hit instead of the result's list, so a search with many hits keeps flat memory
   * (a job ranks them as they come); `maxHits` still counts them.
   */
  onHit?: (hit: SubstructureHit) => void;
}

export interface SubstructureResult {
  hits: SubstructureHit[];
  /** Tuples assembled and verified. */
  examined: number;
  /** Products the synthon screen ruled out without assembly. */
  screened: number;
  invalid: number;
  /** Reactions whose split exceeded the limits and were scanned tuple by tuple. */
  unsplit: number;
  /**
   * Synthon-fragment pairs matched (on the SMILES text graph, or with RDKit where the text cannot
   * say): what the `sss_screen` (sss-screen.ts) and element-count screens leave to match.
   */
  fragmentMatches: number;
  /** Products decided (screened out or verified) / products in the space. */
  coverage: number;
  timedOut: boolean;
}

export const SUBSTRUCTURE_LIMITS = { maxHits: 1000, maxProducts: 200_000 } as const;

const invalidQuery = (field: string, what: string) =>
  new DomainError('validation_error', `${field}: not a valid ${what}`, {
    issues: [{ loc: ['body', ...field.split('.')], msg: `not a valid ${what}`, type: 'value_error' }],
  });

/**
 * Parses the query: SMARTS (falling back to SMILES when no format is given) for substructure, a
 * molecule for superstructure; a validation error names `field`.
 */
export function parseQuery(
  rd: RDKitModule,
  query: string,
  field = 'query',
  format?: 'smarts' | 'smiles',
  mode: StructureMode = 'substructure',
): RDKitMol {
  const tryParse = (f: 'smarts' | 'smiles') => {
    try {
      const m = f === 'smarts' ? rd.get_qmol(query) : rd.get_mol(query);
      if (m?.is_valid()) return m;
      m?.delete();
    } catch (err) {
      // An RDKit parse error is an invalid query; a trap is not (the thread must be retired).
      if (isWasmTrap(err)) throw err;
    }
    return null;
  };
  const order: Array<'smarts' | 'smiles'> =
    mode === 'superstructure' ? ['smiles'] : format ? [format] : ['smarts', 'smiles'];
  // A superstructure query is a molecule: RDKit's SMILES parser would read '~' as a query bond
  // that no product matches, so the search would answer nothing instead of saying why.
  const bad = mode === 'superstructure' ? smilesPrecheck(query) : undefined;
  if (bad) throw invalidQuery(field, `SMILES molecule (${bad})`);
  for (const f of order) {
    const m = tryParse(f);
    if (m) return m;
  }
  throw invalidQuery(
    field,
    mode === 'superstructure' ? 'SMILES molecule' : order.map((f) => f.toUpperCase()).join(' or '),
  );
}

type Match = { atoms?: number[]; bonds?: number[] };

/** Thrown by a slot's screen past the deadline; the search stops and says it timed out. */
const TIME_UP = new Error('substructure search: deadline');

export function substructureSearch(
  rd: RDKitModule,
  space: OpenSpace,
  query: string,
  opts: SubstructureOptions = {},
): SubstructureResult {
  const mode = opts.mode ?? 'substructure';
  const maxHits = opts.maxHits ?? SUBSTRUCTURE_LIMITS.maxHits;
  const maxProducts = opts.maxProducts ?? SUBSTRUCTURE_LIMITS.maxProducts;
  const deadline = Math.min(opts.deadline ?? Infinity, Date.now() + (opts.timeoutMs ?? Infinity));
  const q = parseQuery(rd, query, 'query', opts.format, mode);
  const qAtoms = q.get_num_atoms();
  const skeleton = querySkeleton(q);
  // Superstructure: a synthon with more atoms of an element than the query cannot fit in it.
  const qz = skeleton.z;
  const qCounts =
    mode === 'superstructure' && qz.every((z) => z !== null) ? zCounts(qz as number[]) : undefined;
  let screenedSynthons = 0;
  const mols = synthonMols(rd, space);
  const verifier = createVerifier(rd, space, q, mode, mols, opts.chirality ? { query } : undefined);
  const wanted = (id: string) => !opts.reactions || opts.reactions.has(id);
  let found = 0;
  const patterns = new Map<string, RDKitMol>();
  const pattern = (smarts: string) => {
    if (!patterns.has(smarts)) patterns.set(smarts, skeletonQuery(rd, smarts));
    return patterns.get(smarts)!;
  };
  const hits: SubstructureHit[] = [];
  let examined = 0;
  let screened = 0;
  let invalid = 0;
  let unsplit = 0;
  let fragmentMatches = 0;
  let decided = 0;
  let timedOut = false;
  let full = false;
  try {
    for (let r = 0; r < space.reactions.length && !timedOut && !full; r++) {
      const reaction = space.reactions[r];
      if (!wanted(reaction.info.id)) continue;
      const slots = reaction.slots;
      // Which synthons of slot s contain fragment `smarts` (substructure) or fit the query (super),
      // screened as far as the walk asks (lazy-box.ts).
      const passCache = new Map<string, LazyList>();
      const passing = (s: number, smarts: string | null): LazyList => {
        const key = `${s}\n${smarts ?? ''}`;
        let out = passCache.get(key);
        if (out) return out;
        const needs = smarts === null || mode !== 'substructure' ? null : skeletonNeeds(smarts);
        const counts = needs || qCounts ? slotElementCounts(slots[s]) : null;
        // The build-time screen (format v2); spaces of format v1 have none.
        const screens = needs ? slots[s].screen : undefined;
        const fragScreen = screens ? fragmentScreenOf(smarts!) : undefined;
        const fragmentGraph = needs && !needs.has(1) ? parseSkeletonSmarts(smarts!) : undefined;
        out = lazyList(slots[s].smiles.length, (i) => {
          if (smarts === null) return true;
          // Screening a large slot takes seconds: the deadline holds here too.
          if ((++screenedSynthons & 63) === 0 && Date.now() > deadline) throw TIME_UP;
          if (mode === 'substructure') {
            // The stored screen first: it needs no reading of the SMILES.
            if (fragScreen && !screenPasses(screens!, i, fragScreen)) return false;
            if (!mayContain(countsOf(counts!, slots[s], i), needs!)) return false;
            fragmentMatches++;
            // The synthon's SMILES text decides the match without an RDKit parse where it can.
            const tg = fragmentGraph ? smilesSkeleton(slots[s].smiles[i]) : undefined;
            if (tg) return containsSkeleton(fragmentGraph!, tg);
            const m = mols.get(r, s, i);
            return !!(m && (JSON.parse(m.get_substruct_match(pattern(smarts))) as Match).atoms?.length);
          }
          if (slots[s].heavyAtoms[i] > qAtoms) return false;
          if (qCounts && !mayFitIn(countsOf(counts!, slots[s], i), qCounts)) return false;
          const m = mols.get(r, s, i);
          const sk = m ? querySkeleton(m) : null;
          const p = sk ? pattern(skeletonSmarts(sk.z, sk.bonds)) : null;
          return !!(p && (JSON.parse(q.get_substruct_match(p)) as Match).atoms?.length);
        });
        passCache.set(key, out);
        return out;
      };
      let splits: Split[] | undefined;
      if (mode === 'superstructure') splits = [slots.map(() => 'super')];
      else splits = splitQuery(skeleton, reaction.info);
      if (!splits) {
        unsplit++;
        splits = [slots.map(() => null)];
      }
      const allBoxes = splits.map((split) =>
        split.map((f, s) => (mode === 'superstructure' ? passing(s, 'super') : passing(s, f))),
      );
      let verified = 0;
      let light = 0; // ruled out by heavy-atom count alone
      try {
        const boxes = allBoxes.filter((box) => box.every((l) => l.has(0)));
        const seen = boxes.length > 1 ? new Set<string>() : null;
        walk: for (const box of boxes)
          for (const synthons of lazyTuples(box)) {
            if (seen) {
              const key = synthons.join(',');
              if (seen.has(key)) continue;
              seen.add(key);
            }
            verified++;
            const heavy = synthons.reduce((n, i, s) => n + slots[s].heavyAtoms[i], 0);
            if (mode === 'substructure' ? heavy < qAtoms : heavy > qAtoms) {
              light++;
              continue;
            }
            if (examined >= maxProducts || Date.now() > deadline) {
              timedOut = true;
              break walk;
            }
            examined++;
            const hit = verifier.verify({ reaction: r, synthons });
            if (hit === undefined) invalid++;
            else if (hit) {
              if (opts.onHit) opts.onHit(hit);
              else hits.push(hit);
              if (++found >= maxHits) {
                full = true;
                break walk;
              }
            }
          }
      } catch (e) {
        if (e !== TIME_UP) throw e;
        timedOut = true;
      }
      // Boxes may overlap and a stopped walk leaves lists unscreened: count what is sure.
      if (timedOut || full) decided += excludedAtLeast(reaction.info.products, allBoxes) + verified;
      else {
        screened += reaction.info.products - verified + light;
        decided += reaction.info.products;
      }
    }
  } finally {
    verifier.free();
    q.delete();
    mols.free();
    patterns.forEach((p) => p.delete());
  }
  const total = opts.reactions
    ? space.reactions.reduce((n, x) => n + (wanted(x.info.id) ? x.info.products : 0), 0)
    : space.manifest.counts.products;
  return {
    hits,
    examined,
    screened,
    invalid,
    unsplit,
    fragmentMatches,
    coverage: total ? Math.min(1, decided / total) : 1,
    timedOut,
  };
}

const fragmentScreens = new Map<string, Uint8Array | undefined>();

/** A fragment's screen, kept per process (fragments recur across reactions and searches). */
function fragmentScreenOf(smarts: string): Uint8Array | undefined {
  if (!fragmentScreens.has(smarts)) {
    if (fragmentScreens.size >= 10_000) fragmentScreens.clear();
    fragmentScreens.set(smarts, fragmentScreen(smarts));
  }
  return fragmentScreens.get(smarts);
}

const elementCounts = new WeakMap<SlotColumns, Array<Map<number, number> | null | undefined>>();

/** Per slot, each synthon's element counts once read (undefined: not read yet, null: unreadable). */
function slotElementCounts(slot: SlotColumns): Array<Map<number, number> | null | undefined> {
  let list = elementCounts.get(slot);
  if (!list) elementCounts.set(slot, (list = new Array(slot.smiles.length)));
  return list;
}

/**
 * A synthon's element counts, read from its SMILES on first use and kept for the opened space:
 * read lazily because the screen leaves few synthons to read on a format-2 space.
 */
function countsOf(
  list: Array<Map<number, number> | null | undefined>,
  slot: SlotColumns,
  i: number,
): Map<number, number> | undefined {
  if (list[i] === undefined) list[i] = smilesElementCounts(slot.smiles[i]) ?? null;
  return list[i] ?? undefined;
}
