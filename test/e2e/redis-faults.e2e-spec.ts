import { randomUUID } from 'node:crypto';
import { eventually } from '../utils/eventually';
import { PrivateRedis } from '../utils/private-redis';
import { createAccount, expectRateLimitHeaders, startApp, TestApp } from '../utils/test-app';

/** No request may hang on a dead or frozen Redis: each must be answered within this deadline. */
const DEADLINE_MS = 1000;

describe('when Redis fails', () => {
  let redis: PrivateRedis;
  let t: TestApp;
  let key: string;
  let counterKey: string;
  const prefix = `faults-${randomUUID()}:`;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    t = await startApp({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix });
    const created = await (await createAccount(t)).createKey();
    key = created.key;
    counterKey = `${prefix}rl:{key:${created.id}}|GET /api/v1/public/ping`;
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await redis.kill();
  });

  const ping = () => t.http.get('/api/v1/public/ping').set('X-Api-Key', key).timeout({ response: DEADLINE_MS });
  const expectServed = async (times: number) => {
    for (let i = 0; i < times; i++) {
      const res = await ping();
      expect(res.status).toBe(200);
      expectRateLimitHeaders(res);
    }
  };
  /** Back in Redis: the instance reconnects and probes by itself, within seconds. */
  const countsInRedisAgain = (atLeast: number) =>
    eventually(
      async () => {
        expect((await ping()).status).toBe(200);
        expect(Number(await redis.get(counterKey))).toBeGreaterThanOrEqual(atLeast);
      },
      { timeoutMs: 10_000 },
    );

  it('counts in Redis while it is up', async () => {
    await expectServed(3);
    expect(await redis.get(counterKey)).toBe('3');
  });

  it('keeps answering, never with a 500 and never hanging, while Redis is frozen (SIGSTOP)', async () => {
    redis.freeze();
    try {
      await expectServed(8);
    } finally {
      redis.thaw();
    }
  });

  it('returns to shared counting by itself once Redis answers again', async () => {
    await countsInRedisAgain(Number(await redis.get(counterKey)) + 1);
  });

  it('keeps answering while Redis is dead, and counts in Redis again after a restart', async () => {
    await redis.kill();
    await expectServed(5);
    await redis.start(); // empty: counting starts afresh
    await countsInRedisAgain(1);
  });
});

describe('when Redis is down as an instance starts', () => {
  let redis: PrivateRedis;
  let t: TestApp;
  let key: string;
  let counterKey: string;
  const prefix = `faults-${randomUUID()}:`;

  beforeAll(async () => {
    redis = await PrivateRedis.reserve(); // nothing listens on its port yet
    t = await startApp({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix });
    const created = await (await createAccount(t)).createKey();
    key = created.key;
    counterKey = `${prefix}rl:{key:${created.id}}|GET /api/v1/public/ping`;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await redis.kill();
  });

  const ping = () => t.http.get('/api/v1/public/ping').set('X-Api-Key', key);

  it('starts and serves with per-instance limits, and says so on /health/ready', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await ping();
      expect(res.status).toBe(200);
      expectRateLimitHeaders(res);
      expect(Number(res.headers['x-ratelimit-remaining'])).toBe(Number(res.headers['x-ratelimit-limit']) - 1 - i);
    }
    const ready = await t.http.get('/health/ready').expect(200);
    expect(ready.body.rateLimits).toBe('redis-unreachable');
  });

  it('counts in Redis once Redis comes up, without a restart', async () => {
    await redis.start();
    await eventually(
      async () => {
        expect((await ping()).status).toBe(200);
        expect(Number(await redis.get(counterKey))).toBeGreaterThanOrEqual(1);
      },
      { timeoutMs: 10_000 },
    );
    expect((await t.http.get('/health/ready').expect(200)).body.rateLimits).toBe('redis');
  });
});
