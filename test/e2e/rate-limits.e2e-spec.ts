import { createAccount, createPlan, expectError, expectRateLimitHeaders, startApp, TestApp } from '../utils/test-app';

const PING = '/api/v1/public/ping';
const CONFIG = '/api/v1/widget/config';

describe('rate limits', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  const ping = (key: string, path = PING) => t.http.get(path).set('X-Api-Key', key);

  it('counts down per key from the plan allowance, with every header', async () => {
    const account = await createAccount(t, 'free');
    const { key } = await account.createKey();
    const first = await ping(key).expect(200);
    expectRateLimitHeaders(first);
    expect(first.headers['x-ratelimit-limit']).toBe('60');
    expect(first.headers['x-ratelimit-remaining']).toBe('59');
    expect(Number(first.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(60);
    expect((await ping(key)).headers['x-ratelimit-remaining']).toBe('58');
  });

  it('keeps separate counters per endpoint and per key', async () => {
    const account = await createAccount(t);
    const a = await account.createKey();
    const b = await account.createKey();
    await ping(a.key);
    await ping(a.key);
    // A fresh count on the other endpoint (a widget route: its visitor's allowance, 30, leaves less than the key's).
    const config = await ping(a.key, CONFIG);
    expect([config.headers['x-ratelimit-limit'], config.headers['x-ratelimit-remaining']]).toEqual(['30', '29']);
    expect((await ping(b.key)).headers['x-ratelimit-remaining']).toBe('59');
  });

  it('counts HEAD in the same bucket as GET of the same route, and refuses it with GET', async () => {
    const account = await createAccount(t, await createPlan(t, 3, 100));
    const { key } = await account.createKey();
    expect((await ping(key).expect(200)).headers['x-ratelimit-remaining']).toBe('2');
    const head = await t.http.head(PING).set('X-Api-Key', key).expect(200);
    expectRateLimitHeaders(head);
    expect(head.headers['x-ratelimit-remaining']).toBe('1');
    expect((await ping(key).expect(200)).headers['x-ratelimit-remaining']).toBe('0');
    expect((await t.http.head(PING).set('X-Api-Key', key)).status).toBe(429);
    expectError(await ping(key), 429, 'rate_limit_exceeded');

    const auth = { Authorization: `Bearer ${account.owner.token}` };
    const list = await t.http.get('/api/v1/api-keys').set(auth).expect(200);
    const listHead = await t.http.head('/api/v1/api-keys').set(auth).expect(200);
    expect(Number(listHead.headers['x-ratelimit-remaining'])).toBe(Number(list.headers['x-ratelimit-remaining']) - 1);
  });

  it('reports HEAD requests under the GET endpoint in analytics', async () => {
    const account = await createAccount(t);
    const { id, key } = await account.createKey();
    await ping(key).expect(200);
    await t.http.head(PING).set('X-Api-Key', key).expect(200);
    const res = await t.http
      .get('/api/v1/analytics/usage')
      .query({ groupBy: 'endpoint', apiKeyId: id })
      .set('Authorization', `Bearer ${account.owner.token}`)
      .expect(200);
    expect(res.body.data).toEqual([{ key: `GET ${PING}`, count: 2 }]);
  });

  it('takes the limit from the plan: API keys and users have their own allowance', async () => {
    const pro = await createAccount(t, 'pro');
    const { key } = await pro.createKey();
    expect((await ping(key)).headers['x-ratelimit-limit']).toBe('600');
    const enterprise = await createAccount(t, 'enterprise');
    const list = await t.http.get('/api/v1/api-keys').set('Authorization', `Bearer ${enterprise.owner.token}`).expect(200);
    expect(list.headers['x-ratelimit-limit']).toBe('1200');
  });

  it('answers 429 with Retry-After past the limit, and the handler never runs', async () => {
    const plan = await createPlan(t, 3, 3);
    const account = await createAccount(t, plan);
    const { key } = await account.createKey(); // 1 of 3 on POST /api/v1/api-keys
    for (let i = 0; i < 3; i++) await ping(key).expect(200);
    const refused = await ping(key);
    expectError(refused, 429, 'rate_limit_exceeded');
    expectRateLimitHeaders(refused);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);

    await account.createKey();
    await account.createKey(); // 3 of 3
    const auth = { Authorization: `Bearer ${account.owner.token}` };
    const over = await t.http.post('/api/v1/api-keys').set(auth).send({ name: 'one too many' });
    expectError(over, 429, 'rate_limit_exceeded');
    expect(await t.prisma.apiKey.count({ where: { accountId: account.id } })).toBe(3);
  });

  it('applies a plan change at once', async () => {
    const plan = await createPlan(t, 2, 2);
    const account = await createAccount(t, plan);
    const { key } = await account.createKey();
    await ping(key);
    await ping(key);
    expectError(await ping(key), 429, 'rate_limit_exceeded');
    await t.http.put('/api/v1/account/plan').set('Authorization', `Bearer ${account.owner.token}`).send({ plan: 'pro' }).expect(200);
    const res = await ping(key).expect(200);
    expect(res.headers['x-ratelimit-limit']).toBe('600');
  });

  it('counts callers without a valid credential per client IP and endpoint, 30 a minute', async () => {
    const path = '/api/v1/widget/config';
    for (let i = 1; i <= 30; i++) {
      const res = await t.http.get(path).set('X-Api-Key', 'wrong');
      expectError(res, 401, 'invalid_api_key');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(30 - i));
    }
    expectError(await t.http.get(path).set('X-Api-Key', 'wrong'), 429, 'rate_limit_exceeded');
    expectError(await t.http.get(path), 429, 'rate_limit_exceeded');
    // A valid key is counted on its own allowance, not the IP's.
    const { key } = await (await createAccount(t)).createKey();
    await t.http.get(path).set('X-Api-Key', key).expect(200);
  });
});
