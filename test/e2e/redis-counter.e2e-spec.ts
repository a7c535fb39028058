import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryThrottlerStorage } from '../../src/rate-limit/memory-throttler.storage';
import { RedisThrottlerStorage } from '../../src/rate-limit/redis-throttler.storage';
import { eventually } from '../utils/eventually';
import { PrivateRedis } from '../utils/private-redis';

/**
 * The Redis counter on its own, against a redis-server of the test's: the hits asked for in one
 * turn of the event loop go to Redis together (several script calls when there are more than 256),
 * and each caller must still get its own exact count.
 */
describe('Redis rate-limit counter', () => {
  let redis: PrivateRedis;
  let fallback: MemoryThrottlerStorage;
  let storage: RedisThrottlerStorage;
  const prefix = `counter-${randomUUID()}:`;
  const WINDOW_MS = 60_000;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    fallback = new MemoryThrottlerStorage();
    // A command timeout of 1 s: short enough for the frozen-Redis test, long enough that a loaded
    // machine does not turn a slow answer into a fallback mid-burst.
    storage = new RedisThrottlerStorage(redis.target, fallback, 1000, prefix);
    await storage.onModuleInit();
  }, 30_000);
  afterAll(async () => {
    storage.onApplicationShutdown();
    fallback.onModuleDestroy();
    await redis.kill();
  });

  const burst = (key: string, n: number, limit: number) => Array.from({ length: n }, () => storage.increment(key, WINDOW_MS, limit));

  it('gives every hit of a burst its own count, over several script calls and keys', async () => {
    // 2 × 300 hits asked for in the same tick: one flush, three script calls, keys interleaved.
    const a = burst('a', 300, 100);
    const b = burst('b', 300, 250);
    const [ra, rb] = await Promise.all([Promise.all(a), Promise.all(b)]);
    const counts = (records: typeof ra) => records.map((r) => r.totalHits).sort((x, y) => x - y);
    expect(counts(ra)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(counts(rb)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(
      ra
        .filter((r) => r.isBlocked)
        .map((r) => r.totalHits)
        .sort((x, y) => x - y),
    ).toEqual(Array.from({ length: 200 }, (_, i) => i + 101));
    expect(rb.filter((r) => r.isBlocked)).toHaveLength(50);
    for (const r of [...ra, ...rb]) {
      expect(r.timeToExpire).toBeGreaterThanOrEqual(1);
      expect(r.timeToExpire).toBeLessThanOrEqual(60);
      expect(r.timeToBlockExpire).toBe(r.isBlocked ? r.timeToExpire : 0);
    }
    expect(await redis.get(`${prefix}{a}`)).toBe('300');
    expect(await redis.get(`${prefix}{b}`)).toBe('300');
    expect(storage.status()).toBe('redis');
  });

  it('refuses a key Redis refused without asking Redis again, until the limit is raised or the window ends', async () => {
    await Promise.all(burst('e', 7, 5)); // 5 allowed, 2 refused: Redis holds 7
    const again = await Promise.all(burst('e', 3, 5));
    for (const r of again) {
      expect(r.isBlocked).toBe(true);
      expect(r.totalHits).toBeGreaterThan(5);
      expect(r.timeToExpire).toBeGreaterThanOrEqual(1);
      expect(r.timeToExpire).toBeLessThanOrEqual(60);
      expect(r.timeToBlockExpire).toBe(r.timeToExpire);
    }
    expect(await redis.get(`${prefix}{e}`)).toBe('7'); // not asked

    // A plan upgrade: the count Redis gave (7) is under the new limit, so Redis counts again.
    const raised = await storage.increment('e', WINDOW_MS, 10);
    expect(raised).toMatchObject({ totalHits: 8, isBlocked: false });
    expect(await redis.get(`${prefix}{e}`)).toBe('8');

    // A window that ended: counted from 1 again in a new window.
    await Promise.all([0, 1].map(() => storage.increment('f', 300, 1)));
    expect((await storage.increment('f', 300, 1)).isBlocked).toBe(true);
    expect(await redis.get(`${prefix}{f}`)).toBe('2');
    await sleep(350); // the clock, not a state: the first hit after the window's end starts a new one
    expect(await storage.increment('f', 300, 1)).toMatchObject({ totalHits: 1, isBlocked: false });
    expect(await redis.get(`${prefix}{f}`)).toBe('1');
  });

  it('counts in this process while Redis is frozen, and in Redis again once it answers', async () => {
    redis.freeze();
    try {
      const records = await Promise.all(burst('c', 20, 10));
      expect(storage.status()).toBe('redis-unreachable');
      expect(records.map((r) => r.totalHits).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(records.filter((r) => r.isBlocked)).toHaveLength(10);
    } finally {
      redis.thaw();
    }
    await eventually(async () => {
      await storage.increment('d', WINDOW_MS, 10);
      expect(storage.status()).toBe('redis');
    });
    expect(Number(await redis.get(`${prefix}{d}`))).toBeGreaterThanOrEqual(1);
  });
});
