import { describe, expect, it } from 'vitest';
import { createLru } from '../../platform/lru.ts';
import { loadConfig, ConfigError } from '../../platform/config.ts';

describe('createLru', () => {
  it('evicts least recently used entries past the byte budget', () => {
    const lru = createLru<Uint8Array>({ maxBytes: 100, size: (v) => v.byteLength });
    lru.set('a', new Uint8Array(40));
    lru.set('b', new Uint8Array(40));
    lru.get('a'); // a is now the most recent
    lru.set('c', new Uint8Array(40)); // 120 > 100: b goes
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBeDefined();
    expect(lru.get('c')).toBeDefined();
    expect(lru.stats()).toMatchObject({ entries: 2, bytes: 80, evictions: 1 });
  });

  it('bounds entries too, and never keeps a value bigger than the budget', () => {
    const lru = createLru<Uint8Array>({ maxBytes: 100, maxEntries: 2, size: (v) => v.byteLength });
    for (const k of ['a', 'b', 'c']) lru.set(k, new Uint8Array(1));
    expect(lru.stats().entries).toBe(2);
    lru.set('huge', new Uint8Array(101));
    expect(lru.get('huge')).toBeUndefined();
    expect(lru.stats().bytes).toBeLessThanOrEqual(100);
  });

  it('measures promised values when they resolve, and forgets rejected ones', async () => {
    const lru = createLru<Promise<Uint8Array>>({ maxBytes: 100, size: (v) => v.byteLength });
    lru.set('a', Promise.resolve(new Uint8Array(60)));
    lru.set('b', Promise.resolve(new Uint8Array(60)));
    const failed = Promise.reject(new Error('no such object'));
    lru.set('c', failed);
    await failed.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 0));
    expect(lru.stats()).toMatchObject({ entries: 1, bytes: 60 });
    expect(lru.get('b')).toBeDefined();
  });
});

describe('memory budgets in the configuration', () => {
  it('reads RESULT_CACHE_BYTES and SUBSTRUCTURE_INDEX_BYTES with units, and refuses nonsense', () => {
    const c = loadConfig({ RESULT_CACHE_BYTES: '64M', SUBSTRUCTURE_INDEX_BYTES: '1g' });
    expect(c.resultCacheBytes).toBe(64 * 2 ** 20);
    expect(c.substructureIndexBytes).toBe(2 ** 30);
    expect(loadConfig({}).resultCacheBytes).toBe(256 * 2 ** 20);
    expect(() => loadConfig({ RESULT_CACHE_BYTES: 'lots' })).toThrow(ConfigError);
    expect(() => loadConfig({ SUBSTRUCTURE_INDEX_BYTES: '-5' })).toThrow(/SUBSTRUCTURE_INDEX_BYTES/);
  });
});
