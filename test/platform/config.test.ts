import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, DEFAULT_TIER_LIMITS } from '../../platform/config.ts';

describe('loadConfig', () => {
  it('uses embedded defaults when nothing is set', () => {
    const c = loadConfig({}, '/srv/app');
    expect(c.port).toBe(8000);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.temporal.address).toBeUndefined();
    expect(c.s3).toBeUndefined();
    expect(c.dataDir).toBe('/srv/app/data');
    expect(c.tierLimits).toEqual(DEFAULT_TIER_LIMITS);
  });

  it('names the variable of a bad value', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ S3_ENDPOINT: 'http://127.0.0.1:9000' })).toThrow(/S3_BUCKET/);
    expect(() => loadConfig({ TIER_LIMITS: '{"free": -1}' })).toThrow(/TIER_LIMITS/);
  });

  it('merges tier limit overrides over the defaults', () => {
    const c = loadConfig({ TIER_LIMITS: '{"free": 5, "lab": 77}' });
    expect(c.tierLimits.free).toBe(5);
    expect(c.tierLimits.lab).toBe(77);
    expect(c.tierLimits.premium).toBe(DEFAULT_TIER_LIMITS.premium);
  });

  it('configures S3 with path-style addressing when an endpoint is given', () => {
    const c = loadConfig({ S3_BUCKET: 'b', S3_ENDPOINT: 'http://127.0.0.1:9000' });
    expect(c.s3).toMatchObject({ bucket: 'b', endpoint: 'http://127.0.0.1:9000', forcePathStyle: true });
  });

  it('reads shard cache budgets as byte counts with binary units, naming the variable of a bad one', () => {
    const c = loadConfig({ SHARD_CACHE_DISK_BYTES: '20G', SHARD_CACHE_MEMORY_BYTES: '512m' }, '/srv/app');
    expect(c.shardCache).toEqual({
      dir: '/srv/app/data/shard-cache',
      diskBytes: 20 * 2 ** 30,
      memoryBytes: 512 * 2 ** 20,
    });
    expect(loadConfig({ SHARD_CACHE_MEMORY_BYTES: '1048576' }).shardCache.memoryBytes).toBe(2 ** 20);
    for (const bad of ['lots', '-5', '0', '1.5G', '12Q'])
      expect(() => loadConfig({ SHARD_CACHE_DISK_BYTES: bad })).toThrow(
        /SHARD_CACHE_DISK_BYTES: expected a positive byte count/,
      );
  });

  it('reads the fleet settings: worker id, scan endpoint, fan-out budget; names the variable of a bad one', () => {
    const c = loadConfig({
      WORKER_ID: 'scan-7',
      SCAN_LISTEN: '0.0.0.0:7300',
      FLEET_SEARCH: 'true',
      SEARCH_BUDGET_MS: '800',
      FLEET_TOKEN: 's3cret',
    });
    expect(c.fleet).toMatchObject({
      workerId: 'scan-7',
      scanHost: '0.0.0.0',
      scanPort: 7300,
      search: true,
      searchBudgetMs: 800,
      token: 's3cret',
      heartbeatMs: 5000,
      staleMs: 20000,
    });
    expect(loadConfig({}).fleet.workerId).toMatch(/^[\w.-]+-\d+$/);
    expect(() => loadConfig({ WORKER_ID: 'a/b' })).toThrow(/WORKER_ID/);
    expect(() => loadConfig({ SCAN_LISTEN: '7300' })).toThrow(/SCAN_LISTEN: expected host:port/);
    expect(() => loadConfig({ SEARCH_BUDGET_MS: '0' })).toThrow(/SEARCH_BUDGET_MS/);
  });
});
