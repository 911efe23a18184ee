/**
 * A map from non-negative integer keys (below 2^53) to numbers, open addressing over typed
 * arrays. The ring-core cross bounds of one query (ring-cross.ts crossBounder) are looked up once
 * per walked tuple and threshold step, hundreds of thousands of times a query: in a Map, whose
 * entries and heap-number values the collector traces, the lookups and collections were ~10 % of
 * a warm query on the 10^9 space (bench/synthons/README.md, "Pair walk by query-mask groups").
 */
export interface NumberMemo {
  /** The value kept for `key`, or undefined. */
  get(key: number): number | undefined;
  set(key: number, value: number): void;
  readonly size: number;
}

const EMPTY = -1;

export function numberMemo(capacity = 1024): NumberMemo {
  let cap = 1 << Math.max(4, Math.ceil(Math.log2(capacity * 2)));
  let keys = new Float64Array(cap).fill(EMPTY);
  let values = new Float64Array(cap);
  let size = 0;
  // Fibonacci hashing of the key's low and high 32 bits.
  const slot = (key: number, mask: number): number =>
    (Math.imul((key >>> 0) ^ Math.floor(key / 4294967296), 0x9e3779b1) >>> 0) & mask;
  const find = (key: number): number => {
    const mask = cap - 1;
    let h = slot(key, mask);
    while (keys[h] !== EMPTY && keys[h] !== key) h = (h + 1) & mask;
    return h;
  };
  const grow = (): void => {
    const [oldKeys, oldValues] = [keys, values];
    cap *= 2;
    keys = new Float64Array(cap).fill(EMPTY);
    values = new Float64Array(cap);
    for (let h = 0; h < oldKeys.length; h++) {
      if (oldKeys[h] === EMPTY) continue;
      const at = find(oldKeys[h]);
      keys[at] = oldKeys[h];
      values[at] = oldValues[h];
    }
  };
  return {
    get(key) {
      const h = find(key);
      return keys[h] === EMPTY ? undefined : values[h];
    },
    set(key, value) {
      let h = find(key);
      if (keys[h] === EMPTY) {
        if (2 * (size + 1) > cap) {
          grow();
          h = find(key);
        }
        keys[h] = key;
        size++;
      }
      values[h] = value;
    },
    get size() {
      return size;
    },
  };
}
