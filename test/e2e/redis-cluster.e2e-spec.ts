import { randomBytes, randomUUID } from 'node:crypto';
import { MemoryThrottlerStorage } from '../../src/rate-limit/memory-throttler.storage';
import { RedisThrottlerStorage } from '../../src/rate-limit/redis-throttler.storage';
import { eventually } from '../utils/eventually';
import { PrivateRedisCluster } from '../utils/private-redis';
import { createAccount, expectRateLimitHeaders, onRealServices, startApp, TestApp } from '../utils/test-app';

/** No request may hang on a dead node: each must be answered within this deadline. */
const DEADLINE_MS = 1000;
const PING = 'GET /api/v1/public/ping';

/** Rate-limit counters and the rest of Gatehouse's Redis traffic on a Redis Cluster of three primaries (REDIS_CLUSTER=true). */
describe('on a Redis Cluster of three primaries', () => {
  let cluster: PrivateRedisCluster;

  beforeAll(async () => {
    cluster = await PrivateRedisCluster.start(3);
  }, 60_000);
  afterAll(() => cluster?.kill());

  it('keeps limits exact for two instances counting at once, with trackers spread over every primary', async () => {
    const prefix = `cluster-${randomUUID()}:rl:`;
    const fallbacks = [new MemoryThrottlerStorage(), new MemoryThrottlerStorage()];
    const instances = fallbacks.map((fallback) => new RedisThrottlerStorage(cluster.target, fallback, 2000, prefix));
    try {
      await Promise.all(instances.map((s) => s.onModuleInit()));
      const trackers = Array.from({ length: 24 }, () => `key:${randomUUID()}`);
      // The trackers' hash tags land on all three primaries.
      const owners = new Set(await Promise.all(trackers.map((t) => cluster.portOf(`${prefix}{${t}}`))));
      expect(owners.size).toBe(3);

      const counters = trackers.flatMap((t) => [`${t}|GET /a`, `${t}|POST /b`]);
      const HITS = 30;
      const LIMIT = 10;
      const answers = await Promise.all(
        counters.flatMap((counter) =>
          Array.from({ length: HITS }, (_, i) =>
            instances[i % 2].increment(counter, 60_000, LIMIT).then((record) => ({ counter, record })),
          ),
        ),
      );
      for (const counter of counters) {
        const mine = answers.filter((a) => a.counter === counter).map((a) => a.record);
        // One counter per key and endpoint across both instances: the allowed hits counted 1…LIMIT, each once.
        const allowed = mine.filter((r) => !r.isBlocked).map((r) => r.totalHits);
        expect(allowed.sort((x, y) => x - y)).toEqual(Array.from({ length: LIMIT }, (_, i) => i + 1));
      }
      const [tracker] = trackers;
      expect(Number(await cluster.get(`${prefix}{${tracker}}|GET /a`))).toBeGreaterThan(LIMIT);
      expect(instances.map((s) => s.status())).toEqual(['redis', 'redis']);
    } finally {
      for (const s of instances) s.onApplicationShutdown();
      for (const f of fallbacks) f.onModuleDestroy();
    }
  });

  describe('the app', () => {
    let t: TestApp;
    let prefix: string;

    beforeAll(async () => {
      prefix = `gatehouse-test:${randomUUID()}:`;
      t = await startApp({ REDIS_URL: cluster.target.url, REDIS_CLUSTER: 'true', REDIS_KEY_PREFIX: prefix });
    }, 60_000);
    afterAll(() => t?.close());

    const ping = (key: string) => t.http.get('/api/v1/public/ping').set('X-Api-Key', key).timeout({ response: DEADLINE_MS });

    it('enforces the plan exactly: 200 concurrent requests, 60 allowed, 140 refused, one counter in the cluster', async () => {
      const { key, id } = await (await createAccount(t, 'free')).createKey();
      const answers = await Promise.all(Array.from({ length: 200 }, () => t.http.get('/api/v1/public/ping').set('X-Api-Key', key)));
      const allowed = answers.filter((a) => a.status === 200);
      expect({ allowed: allowed.length, refused: answers.filter((a) => a.status === 429).length }).toEqual({ allowed: 60, refused: 140 });
      expect(allowed.map((a) => Number(a.headers['x-ratelimit-remaining'])).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 60 }, (_, i) => i),
      );
      expect(Number(await cluster.get(`${prefix}rl:{key:${id}}|${PING}`))).toBeGreaterThanOrEqual(60);
    });

    it('keeps answering while the primary holding a key’s counters is dead, and counts in the cluster again once it is back', async () => {
      const { key, id } = await (await createAccount(t, 'enterprise')).createKey();
      const counter = `${prefix}rl:{key:${id}}|${PING}`;
      expect((await ping(key)).status).toBe(200);
      const port = await cluster.portOf(counter);
      await cluster.killNode(port);
      try {
        for (let i = 0; i < 5; i++) {
          const res = await ping(key);
          expect(res.status).toBe(200);
          expectRateLimitHeaders(res);
        }
      } finally {
        await cluster.restartNode(port);
      }
      // The node came back empty (no persistence): the counter starts again in the cluster.
      await eventually(
        async () => {
          expect((await ping(key)).status).toBe(200);
          expect(Number(await cluster.get(counter))).toBeGreaterThanOrEqual(1);
        },
        { timeoutMs: 15_000, intervalMs: 200 },
      );
    });
  });

  // Two instances need one database: only on PostgreSQL.
  (onRealServices ? describe : describe.skip)('two instances on one PostgreSQL', () => {
    let a: TestApp;
    let b: TestApp;

    beforeAll(async () => {
      const shared = {
        REDIS_URL: cluster.target.url,
        REDIS_CLUSTER: 'true',
        REDIS_KEY_PREFIX: `gatehouse-test:${randomUUID()}:`,
        JWT_SECRET: randomBytes(32).toString('hex'),
        WIDGET_SECRETS: randomBytes(32).toString('hex'),
      };
      a = await startApp(shared);
      b = await startApp(shared);
    }, 60_000);
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it('share one counter: 200 concurrent requests over both, 60 allowed', async () => {
      const { key } = await (await createAccount(a, 'free')).createKey();
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).http.get('/api/v1/public/ping').set('X-Api-Key', key)),
      );
      expect(answers.filter((r) => r.status === 200)).toHaveLength(60);
      expect(answers.filter((r) => r.status === 429)).toHaveLength(140);
    });

    it('tell each other through the cluster: a key revoked on one is refused on the other within a second', async () => {
      const account = await createAccount(a);
      const { key, id } = await account.createKey();
      expect((await b.http.get('/api/v1/public/ping').set('X-Api-Key', key)).status).toBe(200);
      await a.http.delete(`/api/v1/api-keys/${id}`).set('Authorization', `Bearer ${account.owner.token}`).expect(200);
      await eventually(async () => expect((await b.http.get('/api/v1/public/ping').set('X-Api-Key', key)).status).toBe(401), {
        timeoutMs: 1000,
      });
    });
  });
});
