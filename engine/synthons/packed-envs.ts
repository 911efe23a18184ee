/**
 * A slot's join environments (join-env.ts) packed into one typed array. Decoded into objects, the
 * 10^9 space's 489,123 environments were ~10 million small JS objects that every full garbage
 * collection traced: ~360 ms a collection, about one per query, up to half of a warm query's time
 * (node --trace-gc, 2026-11-29). Packed, the collector has nothing to trace; a search unpacks the
 * environments of the synthons it reaches (envAt), short-lived objects the young generation takes.
 *
 * Layout per synthon, 32-bit words: c0, |nbrs|, (bt, inv)…, |outer|, then per outer neighbour c1,
 * bt, |nbrs|, (bt, code1)…, then |across|, (bt, code1)…; pairs already in fold's order.
 */
import { decodeJoinEnv, type JoinEnv } from './join-env.ts';

export interface PackedEnvs {
  length: number;
  /** Synthon i's words are data[start[i] .. start[i + 1]). */
  start: Uint32Array;
  data: Uint32Array;
}

/** Packs a slot's stored environments; undefined when any synthon has none. */
export function packJoinEnvs(stored: readonly string[]): PackedEnvs | undefined {
  const start = new Uint32Array(stored.length + 1);
  let data = new Uint32Array(Math.max(64, 24 * stored.length));
  let n = 0;
  const put = (v: number): void => {
    if (n === data.length) {
      const grown = new Uint32Array(2 * data.length);
      grown.set(data);
      data = grown;
    }
    data[n++] = v;
  };
  const pairs = (list: ReadonlyArray<readonly [number, number]>): void => {
    put(list.length);
    for (const [a, b] of list) {
      put(a);
      put(b);
    }
  };
  for (let i = 0; i < stored.length; i++) {
    const e = decodeJoinEnv(stored[i]);
    if (!e) return undefined;
    put(e.c0);
    pairs(e.nbrs);
    put(e.outer.length);
    for (const o of e.outer) {
      put(o.c1);
      put(o.bt);
      pairs(o.nbrs);
    }
    pairs(e.across);
    start[i + 1] = n;
  }
  return { length: stored.length, start, data: data.slice(0, n) };
}

/** Invariant of synthon i's attachment atom. */
export const envC0 = (p: PackedEnvs, i: number): number => p.data[p.start[i]];

/** Synthon i's environment as join-env.ts's functions take it. */
export function envAt(p: PackedEnvs, i: number): JoinEnv {
  const d = p.data;
  let k = p.start[i];
  const pairs = (): Array<[number, number]> => {
    const m = d[k++];
    const out: Array<[number, number]> = new Array(m);
    for (let r = 0; r < m; r++, k += 2) out[r] = [d[k], d[k + 1]];
    return out;
  };
  const c0 = d[k++];
  const nbrs = pairs();
  const outer: JoinEnv['outer'] = new Array(d[k++]);
  for (let r = 0; r < outer.length; r++) {
    const c1 = d[k++];
    const bt = d[k++];
    outer[r] = { c1, bt, nbrs: pairs() };
  }
  return { c0, nbrs, outer, across: pairs() };
}
