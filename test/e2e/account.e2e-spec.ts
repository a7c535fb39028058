import type { Test } from 'supertest';
import { createAccount, createPlan, expectError, expectRateLimitHeaders, startApp, TestAccount, TestApp } from '../utils/test-app';

describe('plans and the account', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  }, 60_000);
  afterAll(() => t.close());

  const get = (url: string, token: string): Test => t.http.get(url).set('Authorization', `Bearer ${token}`);
  const patchAccount = (token: string, body: object): Test =>
    t.http.patch('/api/v1/account').set('Authorization', `Bearer ${token}`).send(body);
  const putPlan = (token: string, body: object): Test =>
    t.http.put('/api/v1/account/plan').set('Authorization', `Bearer ${token}`).send(body);
  const planOf = async (account: TestAccount) => (await t.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).planId;

  it('GET /api/v1/plans lists free, pro and enterprise with their limits (and no private plan)', async () => {
    const account = await createAccount(t);
    await createPlan(t, 1, 1);
    const analyst = await account.addUser('ANALYST');
    const res = await get('/api/v1/plans', analyst.token);
    expect(res.status).toBe(200);
    expectRateLimitHeaders(res);
    expect(res.body).toEqual({
      data: [
        { id: 'free', name: expect.any(String), apiRequestsPerMinute: 60, managementRequestsPerMinute: 120, challengeWaitMs: 500 },
        { id: 'pro', name: expect.any(String), apiRequestsPerMinute: 600, managementRequestsPerMinute: 600, challengeWaitMs: 500 },
        {
          id: 'enterprise',
          name: expect.any(String),
          apiRequestsPerMinute: 6000,
          managementRequestsPerMinute: 1200,
          challengeWaitMs: 500,
        },
      ],
    });
  });

  it('GET /api/v1/account shows the name and the plan, to every role', async () => {
    const account = await createAccount(t);
    const { name } = await t.prisma.account.findUniqueOrThrow({ where: { id: account.id } });
    for (const user of [account.owner, await account.addUser('DEVELOPER'), await account.addUser('ANALYST')]) {
      const res = await get('/api/v1/account', user.token);
      expect(res.status).toBe(200);
      expectRateLimitHeaders(res);
      expect(res.body).toEqual(
        expect.objectContaining({
          id: account.id,
          name,
          plan: {
            id: 'free',
            name: expect.any(String),
            apiRequestsPerMinute: 60,
            managementRequestsPerMinute: 120,
            challengeWaitMs: 500,
          },
          createdAt: expect.any(String),
        }),
      );
    }
  });

  describe('PATCH /api/v1/account', () => {
    it('renames the account for an OWNER and an ADMIN', async () => {
      const account = await createAccount(t);
      const admin = await account.addUser('ADMIN');
      for (const [user, name] of [
        [account.owner, 'Acme Inc.'],
        [admin, 'x'.repeat(100)],
        [admin, 'Ünïcødé — Ltd'],
      ] as const) {
        const res = await patchAccount(user.token, { name });
        expect(res.status).toBe(200);
        expectRateLimitHeaders(res);
        expect(res.body).toMatchObject({ id: account.id, name, plan: { id: 'free' } });
        expect((await get('/api/v1/account', account.owner.token).expect(200)).body.name).toBe(name);
        expect((await get('/api/v1/auth/me', admin.token).expect(200)).body.account).toEqual({ id: account.id, name });
      }
    });

    it('refuses an empty, a 101-character, a non-string or a missing name, and unknown fields, with 400; the name stays', async () => {
      const account = await createAccount(t);
      const { name } = await t.prisma.account.findUniqueOrThrow({ where: { id: account.id } });
      for (const body of [
        { name: '' },
        { name: 'x'.repeat(101) },
        { name: 42 },
        { name: null },
        {},
        { name: 'Fine', plan: 'enterprise' },
        { name: 'Fine', id: account.id },
      ]) {
        const res = await patchAccount(account.owner.token, body);
        try {
          expectError(res, 400, 'validation_failed');
          expect(res.body.details).toEqual(expect.any(Array));
          expectRateLimitHeaders(res);
        } catch (err) {
          (err as Error).message = `${JSON.stringify(body).slice(0, 60)}: ${(err as Error).message}`;
          throw err;
        }
      }
      expect(await t.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).toMatchObject({ name, planId: 'free' });
    });
  });

  describe('PUT /api/v1/account/plan', () => {
    it('moves the limits at once, for API keys and for every user of the account', async () => {
      const account = await createAccount(t);
      const { key } = await account.createKey();
      const dev = await account.addUser('DEVELOPER');
      const ping = () => t.http.get('/api/v1/public/ping').set('X-Api-Key', key);

      // Warm every cache on the old plan first: the change must not wait for them to expire.
      for (let i = 0; i < 2; i++) {
        expect((await ping().expect(200)).headers['x-ratelimit-limit']).toBe('60');
        expect((await get('/api/v1/api-keys', dev.token).expect(200)).headers['x-ratelimit-limit']).toBe('120');
      }

      const res = await putPlan(account.owner.token, { plan: 'pro' });
      expect(res.status).toBe(200);
      expectRateLimitHeaders(res);
      expect(res.body).toMatchObject({ id: account.id, plan: { id: 'pro', apiRequestsPerMinute: 600, managementRequestsPerMinute: 600 } });

      const keyed = await ping();
      expect(keyed.status).toBe(200);
      expect(keyed.headers['x-ratelimit-limit']).toBe('600');
      expectRateLimitHeaders(keyed);
      const managed = await get('/api/v1/api-keys', dev.token);
      expect(managed.status).toBe(200);
      expect(managed.headers['x-ratelimit-limit']).toBe('600');
      expectRateLimitHeaders(managed);
      expect((await get('/api/v1/account', dev.token).expect(200)).body.plan).toEqual({
        id: 'pro',
        name: expect.any(String),
        apiRequestsPerMinute: 600,
        managementRequestsPerMinute: 600,
        challengeWaitMs: 500,
      });

      expect((await putPlan(account.owner.token, { plan: 'enterprise' })).status).toBe(200);
      expect((await ping()).headers['x-ratelimit-limit']).toBe('6000');
      expect((await get('/api/v1/api-keys', dev.token)).headers['x-ratelimit-limit']).toBe('1200');

      expect((await putPlan(account.owner.token, { plan: 'free' })).status).toBe(200);
      expect((await ping()).headers['x-ratelimit-limit']).toBe('60');
      expect((await get('/api/v1/api-keys', dev.token)).headers['x-ratelimit-limit']).toBe('120');
    });

    it('keeps the counts of the window when the plan changes (the limit moves, the usage stays)', async () => {
      const account = await createAccount(t);
      const { key } = await account.createKey();
      const ping = () => t.http.get('/api/v1/public/ping').set('X-Api-Key', key);
      for (let i = 0; i < 3; i++) await ping().expect(200);
      expect((await putPlan(account.owner.token, { plan: 'pro' })).status).toBe(200);
      const res = await ping().expect(200);
      expect(res.headers['x-ratelimit-limit']).toBe('600');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(600 - 4));
    });

    it('refuses an unknown plan, a private plan or a malformed body with 400, and the plan stays', async () => {
      const account = await createAccount(t);
      const { key } = await account.createKey();
      const privatePlan = await createPlan(t, 5, 5);
      for (const body of [{ plan: 'platinum' }, { plan: privatePlan }, { plan: 'PRO' }, { plan: null }, {}, { plan: 'pro', extra: true }]) {
        const res = await putPlan(account.owner.token, body);
        try {
          expectError(res, 400, 'validation_failed');
          expectRateLimitHeaders(res);
        } catch (err) {
          (err as Error).message = `${JSON.stringify(body)}: ${(err as Error).message}`;
          throw err;
        }
      }
      expect(await planOf(account)).toBe('free');
      expect((await get('/api/v1/account', account.owner.token).expect(200)).body.plan.id).toBe('free');
      expect((await t.http.get('/api/v1/public/ping').set('X-Api-Key', key).expect(200)).headers['x-ratelimit-limit']).toBe('60');
    });

    it('is the OWNER’s alone: an ADMIN gets 403 and the plan stays', async () => {
      const account = await createAccount(t);
      const admin = await account.addUser('ADMIN');
      expectError(await putPlan(admin.token, { plan: 'enterprise' }), 403, 'insufficient_permissions');
      expect(await planOf(account)).toBe('free');
    });

    it('changes only the caller’s account', async () => {
      const account = await createAccount(t);
      const other = await createAccount(t);
      expect((await putPlan(account.owner.token, { plan: 'enterprise' })).status).toBe(200);
      expect(await planOf(account)).toBe('enterprise');
      expect(await planOf(other)).toBe('free');
      expect((await get('/api/v1/api-keys', other.owner.token).expect(200)).headers['x-ratelimit-limit']).toBe('120');
    });
  });
});
