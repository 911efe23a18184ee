import type { ChemRequest, ChemResponse, Highlight } from './protocol.ts';

/**
 * The page side of the RDKit worker: one worker per page, started on first use, with a small
 * cache of depictions (a result grid redraws the same molecules as it is sorted and filtered).
 */
let worker: Worker | undefined;
let nextId = 1;
const pending = new Map<number, { resolve: (r: ChemResponse) => void; reject: (e: Error) => void }>();

function start(): Worker {
  if (worker) return worker;
  worker = new Worker(new URL('./rdkit-worker.ts', import.meta.url), { type: 'module' });
  worker.onmessage = (e: MessageEvent<{ id: number; res?: ChemResponse; error?: string }>) => {
    const p = pending.get(e.data.id);
    pending.delete(e.data.id);
    if (e.data.error !== undefined) p?.reject(new Error(e.data.error));
    else p?.resolve(e.data.res!);
  };
  return worker;
}

function ask<T extends ChemResponse>(req: ChemRequest): Promise<T> {
  const w = start();
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    pending.set(id, { resolve: resolve as (r: ChemResponse) => void, reject });
    w.postMessage({ id, req });
  });
}

const svgCache = new Map<string, Promise<string | null>>();
const CACHE_LIMIT = 2000;

/** An SVG depiction of `smiles` (null when RDKit cannot parse it). */
export function depict(
  smiles: string,
  width: number,
  height: number,
  highlight?: Highlight,
): Promise<string | null> {
  const key = JSON.stringify([smiles, width, height, highlight ?? null]);
  let p = svgCache.get(key);
  if (!p) {
    p = ask<Extract<ChemResponse, { op: 'depict' }>>({ op: 'depict', smiles, width, height, highlight }).then(
      (r) => r.svg,
    );
    svgCache.set(key, p);
    if (svgCache.size > CACHE_LIMIT) svgCache.delete(svgCache.keys().next().value!);
  }
  return p;
}

export const checkSmiles = (smiles: string) =>
  ask<Extract<ChemResponse, { op: 'check' }>>({ op: 'check', smiles });

export const compareMolecules = (query: string, hit: string, width: number, height: number) =>
  ask<Extract<ChemResponse, { op: 'compare' }>>({ op: 'compare', query, hit, width, height });

/** PCA of Morgan fingerprints, computed in the worker. */
export const mapMolecules = (smiles: string[]) =>
  ask<Extract<ChemResponse, { op: 'map' }>>({ op: 'map', smiles });

export const svgDataUrl = (svg: string) => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
