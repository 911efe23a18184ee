/**
 * A least-recently-used map bounded by bytes and by entries: every in-memory cache of the service
 * holds its values here, so none grows with traffic (issue 15: memory under load). Values may be
 * promises of what they will be; `size` is then measured when the promise resolves (until then
 * an entry counts `pendingBytes`). A value bigger than the whole budget is not kept.
 */
export interface LruOptions<V> {
  /** Names the cache in /metrics (cache_bytes); unnamed caches are not exported. */
  name?: string;
  maxBytes: number;
  maxEntries?: number;
  /** Bytes a resolved value holds (an estimate is fine: typed arrays' byteLength, strings × 2). */
  size(value: Awaited<V>): number;
  /** What an entry counts while its promise is pending (default 0). */
  pendingBytes?: number;
}

export interface Lru<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
  stats(): {
    entries: number;
    bytes: number;
    maxBytes: number;
    hits: number;
    misses: number;
    evictions: number;
  };
}

/** Named caches alive in this process (weakly held: a dropped cache disappears from the list). */
const named = new Set<{ name: string; ref: WeakRef<Lru<unknown>> }>();

/** Size and hit counts of every named cache alive in this process (for /metrics). */
export function cachesStats(): ({ name: string } & ReturnType<Lru<unknown>['stats']>)[] {
  const out = [];
  for (const entry of named) {
    const lru = entry.ref.deref();
    if (!lru) named.delete(entry);
    else out.push({ name: entry.name, ...lru.stats() });
  }
  return out;
}

export function createLru<V>(opts: LruOptions<V>): Lru<V> {
  const entries = new Map<string, { value: V; bytes: number }>();
  let bytes = 0;
  let hits = 0,
    misses = 0,
    evictions = 0;
  const maxEntries = opts.maxEntries ?? Infinity;
  const drop = (key: string) => {
    const e = entries.get(key);
    if (!e) return;
    entries.delete(key);
    bytes -= e.bytes;
  };
  const trim = () => {
    while (entries.size > 0 && (bytes > opts.maxBytes || entries.size > maxEntries)) {
      drop(entries.keys().next().value!);
      evictions++;
    }
  };
  const measure = (key: string, entry: { value: V; bytes: number }, v: Awaited<V>) => {
    if (entries.get(key) !== entry) return; // replaced or evicted meanwhile
    const n = opts.size(v);
    bytes += n - entry.bytes;
    entry.bytes = n;
    if (n > opts.maxBytes) drop(key);
    trim();
  };
  const lru: Lru<V> = {
    get(key) {
      const e = entries.get(key);
      if (!e) {
        misses++;
        return undefined;
      }
      hits++;
      entries.delete(key);
      entries.set(key, e);
      return e.value;
    },
    set(key, value) {
      drop(key);
      const entry = { value, bytes: 0 };
      entries.set(key, entry);
      if (value instanceof Promise) {
        entry.bytes = opts.pendingBytes ?? 0;
        bytes += entry.bytes;
        value.then(
          (v: Awaited<V>) => measure(key, entry, v),
          () => entries.get(key) === entry && drop(key),
        );
      } else measure(key, entry, value as Awaited<V>);
      trim();
    },
    delete: drop,
    stats: () => ({ entries: entries.size, bytes, maxBytes: opts.maxBytes, hits, misses, evictions }),
  };
  if (opts.name) named.add({ name: opts.name, ref: new WeakRef(lru as Lru<unknown>) });
  return lru;
}
