import { loadUnderFakeClock } from '../../test/utils/fake-clock';
import type * as InvalidationModule from './invalidation.service';
import type { AppConfig } from '../config/app-config';
import { Metrics } from '../metrics/metrics';

/** How often a cache re-reads an entry still in use, by where the rows live. */
describe('CacheInvalidation caches', () => {
  let CacheInvalidation: typeof InvalidationModule.CacheInvalidation;
  let loads: string[];

  beforeEach(() => {
    ({ CacheInvalidation } = loadUnderFakeClock(
      Date.UTC(2025, 0, 1),
      () => require('./invalidation.service') as typeof InvalidationModule,
    ));
    loads = [];
  });

  afterEach(() => jest.useRealTimers());

  async function cacheFor(config: Partial<AppConfig>) {
    const invalidation = new CacheInvalidation(
      { redisKeyPrefix: 'test:', ...config } as AppConfig,
      new Metrics({ metrics: {} } as AppConfig),
    );
    const cache = invalidation.cache<string>('apiKeyHash', { max: 10, load: (key) => (loads.push(key), Promise.resolve(`row of ${key}`)) });
    await cache.get('k');
    return { invalidation, cache };
  }

  it('re-reads an entry in use within 30 s when other processes may write the rows (DATABASE_URL)', async () => {
    const { cache } = await cacheFor({ databaseUrl: 'postgresql://db.example/gatehouse' });
    jest.advanceTimersByTime(30_000);
    expect(cache.cached('k')).toBe('row of k');
    expect(loads).toEqual(['k', 'k']);
  });

  it('on the embedded database, which no other process writes, re-reads only after 10 min; an invalidation drops the entry at once', async () => {
    const { invalidation, cache } = await cacheFor({ databaseUrl: undefined });
    jest.advanceTimersByTime(5 * 60_000 - 1);
    expect(cache.cached('k')).toBe('row of k');
    expect(loads).toEqual(['k']);

    jest.advanceTimersByTime(5 * 60_000 + 1);
    expect(cache.cached('k')).toBe('row of k');
    expect(loads).toEqual(['k', 'k']);

    invalidation.invalidate('apiKeyHash', 'k');
    expect(cache.cached('k')).toBeUndefined();
  });
});
