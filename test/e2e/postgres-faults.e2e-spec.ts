import { eventually } from '../utils/eventually';
import { PrivatePostgres } from '../utils/private-postgres';
import { createAccount, expectError, expectRateLimitHeaders, startApp, TestAccount, TestApp } from '../utils/test-app';

/** No request may hang on a stopped database: each must be answered within this deadline. */
const DEADLINE_MS = 3000;

describe('when PostgreSQL stops', () => {
  let pg: PrivatePostgres;
  let t: TestApp;
  let account: TestAccount;
  let key: string;

  beforeAll(async () => {
    pg = await PrivatePostgres.start();
    pg.migrate();
    t = await startApp({ DATABASE_URL: pg.url });
    account = await createAccount(t);
    key = (await account.createKey()).key;
    await t.http.get('/api/v1/public/ping').set('X-Api-Key', key).expect(200);
    await t.http.get('/api/v1/account').set('Authorization', `Bearer ${account.owner.token}`).expect(200);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await pg?.destroy();
  });

  const login = (password: string) =>
    t.http.post('/api/v1/auth/login').send({ email: account.owner.email, password }).timeout({ response: DEADLINE_MS });

  it('answers every request made while it stops: 200 or 503, never a 500, never a hang', async () => {
    const get = () =>
      t.http.get('/api/v1/account').set('Authorization', `Bearer ${account.owner.token}`).timeout({ response: DEADLINE_MS });
    let stopped = false;
    const stopping = pg.stopImmediately().then(() => {
      stopped = true;
    });
    const statuses: number[] = [];
    const worker = async () => {
      while (!stopped && statuses.length < 2000) statuses.push((await get()).status);
    };
    await Promise.all([stopping, ...Array.from({ length: 10 }, worker)]);
    statuses.push((await get()).status);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(statuses.at(-1)).toBe(503);
  });

  it('answers a fast 503 service_unavailable with the documented body and headers', async () => {
    const res = await t.http
      .get('/api/v1/account')
      .set('Authorization', `Bearer ${account.owner.token}`)
      .timeout({ response: DEADLINE_MS });
    expectError(res, 503, 'service_unavailable');
    expectRateLimitHeaders(res);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres|\bat /i);
  });

  it('never lets anyone log in, right password or wrong', async () => {
    for (const password of [account.owner.password, 'wrong password']) {
      const res = await login(password);
      expectError(res, 503, 'service_unavailable');
      expect(res.body.token).toBeUndefined();
    }
  });

  it('keeps serving API keys it already knows (no database on that path)', async () => {
    await t.http.get('/api/v1/public/ping').set('X-Api-Key', key).timeout({ response: DEADLINE_MS }).expect(200);
  });

  it('says not ready on /health', async () => {
    const res = await t.http.get('/health').timeout({ response: DEADLINE_MS });
    expect(res.status).toBe(503);
  });

  it('recovers without a restart once PostgreSQL is back', async () => {
    pg.start();
    await eventually(async () =>
      expect((await t.http.get('/api/v1/account').set('Authorization', `Bearer ${account.owner.token}`)).status).toBe(200),
    );
    const res = await login(account.owner.password);
    expect(res.status).toBe(200);
  });
});
