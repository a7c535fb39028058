import { BOT_MS_PER_CANDIDATE, MAX_COUNTER } from '../../src/widget/pow';
import { createAccount, createPlan, expectError, expectRateLimitHeaders, startApp, TestAccount, TestApp } from '../utils/test-app';
import { issueNonce } from '../utils/widget';

const PING = 'GET /api/v1/public/ping';
const CONFIG = 'GET /api/v1/widget/config';

describe('GET /api/v1/analytics/usage', () => {
  let t: TestApp;
  let account: TestAccount;
  const keys: Record<'a' | 'b' | 'c', { id: string; key: string }> = {} as never;

  const send = async (key: string, path: string, status: number, times: number) => {
    for (let i = 0; i < times; i++) expect((await t.http.get(path).set('X-Api-Key', key)).status).toBe(status);
  };
  /** Analytics reads answered so far: each is the owner's traffic too, in every later report. */
  let reads = 0;
  const usage = async (query: Record<string, string>) => {
    const res = await t.http.get('/api/v1/analytics/usage').query(query).set('Authorization', `Bearer ${account.owner.token}`);
    expectRateLimitHeaders(res);
    reads += 1;
    return res;
  };
  const counts = (res: { body: { data: Array<{ key: string; count: number }> } }) =>
    Object.fromEntries(res.body.data.map((r) => [r.key, r.count]));

  beforeAll(async () => {
    // No timed flush: each report holds exactly what was answered before it, as analytics writes
    // the pending counts before it reads.
    t = await startApp({ USAGE_FLUSH_INTERVAL_MS: '60000' });
    account = await createAccount(t, await createPlan(t, 5, 100));
    keys.a = await account.createKey();
    keys.b = await account.createKey({ scopes: ['public'] });
    keys.c = await account.createKey();
    await t.http.delete(`/api/v1/api-keys/${keys.c.id}`).set('Authorization', `Bearer ${account.owner.token}`).expect(200);

    await send(keys.a.key, '/api/v1/public/ping', 200, 3);
    await send(keys.a.key, '/api/v1/widget/config', 200, 2);
    await send(keys.b.key, '/api/v1/public/ping', 200, 5);
    await send(keys.b.key, '/api/v1/public/ping', 429, 2); // over the plan's 5 a minute
    await send(keys.b.key, '/api/v1/widget/config', 403, 2); // no widget scope
    await send(keys.c.key, '/api/v1/public/ping', 401, 2); // revoked, still the account's traffic
  }, 60_000);
  afterAll(() => t.close());

  it('counts every request by endpoint: successes, 401s, 403s and 429s, dashboard calls too', async () => {
    const res = await usage({ groupBy: 'endpoint' });
    expect(res.status).toBe(200);
    expect(counts(res)).toEqual({
      [PING]: 3 + 5 + 2 + 2,
      [CONFIG]: 2 + 2,
      'POST /api/v1/api-keys': 3,
      'DELETE /api/v1/api-keys/:id': 1,
    });
  });

  it('counts by API key', async () => {
    expect(counts(await usage({ groupBy: 'apiKey' }))).toEqual({ [keys.a.id]: 5, [keys.b.id]: 9, [keys.c.id]: 2 });
  });

  it('counts by status', async () => {
    const before = reads;
    expect(counts(await usage({ groupBy: 'status' }))).toEqual({ '200': 3 + 2 + 5 + 1 + before, '201': 3, '401': 2, '403': 2, '429': 2 });
  });

  it.each(['minute', 'hour', 'day'])('counts by %s, in buckets starting on the grain', async (groupBy) => {
    const before = reads;
    const res = await usage({ groupBy });
    const total = res.body.data.reduce((n: number, r: { count: number }) => n + r.count, 0);
    expect(total).toBe(20 + before);
    for (const { key } of res.body.data) {
      const at = new Date(key);
      expect(at.toISOString()).toBe(key);
      expect(at.getUTCSeconds()).toBe(0);
      if (groupBy !== 'minute') expect(at.getUTCMinutes()).toBe(0);
      if (groupBy === 'day') expect(at.getUTCHours()).toBe(0);
    }
  });

  it('filters by API key and endpoint', async () => {
    expect(counts(await usage({ groupBy: 'status', apiKeyId: keys.b.id }))).toEqual({ '200': 5, '403': 2, '429': 2 });
    expect(counts(await usage({ groupBy: 'apiKey', endpoint: CONFIG }))).toEqual({ [keys.a.id]: 2, [keys.b.id]: 2 });
  });

  it('filters by status class, over time as well', async () => {
    expect(counts(await usage({ groupBy: 'status', statusClass: '4xx' }))).toEqual({ '401': 2, '403': 2, '429': 2 });
    const perMinute = await usage({ groupBy: 'minute', statusClass: '4xx', apiKeyId: keys.b.id });
    expect(perMinute.body.data.reduce((n: number, r: { count: number }) => n + r.count, 0)).toBe(4);
    expect(counts(await usage({ groupBy: 'status', statusClass: '2xx', apiKeyId: keys.a.id }))).toEqual({ '200': 5 });
    expect((await usage({ groupBy: 'hour', statusClass: '5xx' })).body.data).toEqual([]);
    expectError(await usage({ groupBy: 'hour', statusClass: '6xx' }), 400, 'validation_failed');
    expectError(await usage({ groupBy: 'hour', statusClass: '4XX' }), 400, 'validation_failed');
  });

  it('keeps the traffic of API keys and the calls of dashboard users apart', async () => {
    expect(counts(await usage({ groupBy: 'endpoint', caller: 'apiKey' }))).toEqual({ [PING]: 3 + 5 + 2 + 2, [CONFIG]: 2 + 2 });
    const byUsers = counts(await usage({ groupBy: 'endpoint', caller: 'user' }));
    // The users' own analytics reads are there too; no API-key request is.
    expect(byUsers).toEqual({
      'POST /api/v1/api-keys': 3,
      'DELETE /api/v1/api-keys/:id': 1,
      'GET /api/v1/analytics/usage': expect.any(Number),
    });
    expectError(await usage({ groupBy: 'hour', caller: 'robot' }), 400, 'validation_failed');
  });

  it('answers 404 for another account’s key and 400 for bad ranges or input', async () => {
    const other = await createAccount(t);
    const foreign = await other.createKey();
    expectError(await usage({ groupBy: 'status', apiKeyId: foreign.id }), 404, 'not_found');
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    expectError(await usage({ groupBy: 'minute', from: iso(now - 25 * 3600_000), to: iso(now) }), 400, 'validation_failed');
    expectError(await usage({ groupBy: 'hour', from: iso(now - 32 * 86400_000), to: iso(now) }), 400, 'validation_failed');
    expectError(await usage({ groupBy: 'day', from: iso(now), to: iso(now - 1000) }), 400, 'validation_failed');
    expectError(await usage({ groupBy: 'week' }), 400, 'validation_failed');
    expectError(await usage({ groupBy: 'day', apiKeyId: 'nope' }), 400, 'validation_failed');
    expectError(await usage({ groupBy: 'day', from: 'yesterday' }), 400, 'validation_failed');
  });

  it('never shows one account the traffic of another', async () => {
    const other = await createAccount(t);
    const res = await t.http
      .get('/api/v1/analytics/usage')
      .query({ groupBy: 'apiKey' })
      .set('Authorization', `Bearer ${other.owner.token}`)
      .expect(200);
    expect(res.body.data).toEqual([]);
  });

  it('tells what a widget key’s proof of work costs: the level in force, a surge, people’s solve times, a bot’s price', async () => {
    const site = await createAccount(t);
    const widget = await site.createKey({ scopes: ['widget'] });
    const auth = { Authorization: `Bearer ${site.owner.token}` };
    const effort = async (apiKeyId = widget.id) => t.http.get('/api/v1/analytics/widget/effort').query({ apiKeyId }).set(auth);

    const fresh = await effort();
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({
      apiKeyId: widget.id,
      waitMs: 250,
      waitFromPlan: false,
      surge: false,
      solves: 0,
      solveMsMedian: null,
    });
    expect(fresh.body.botCpuSecondsPer1000Nonces).toBe(Math.round((MAX_COUNTER[250] / 2 + 1) * BOT_MS_PER_CANDIDATE));

    for (let i = 0; i < 3; i++) await issueNonce(t, widget.key);
    const solved = (await effort()).body;
    expect(solved.solves).toBe(3);
    expect(solved.solveMsMedian).toBeGreaterThan(0);
    expect(solved.solveMsP90).toBeGreaterThanOrEqual(solved.solveMsMedian);

    // One visitor asking far faster than a quiet key's usual rate: its challenges are raised.
    for (let i = 0; i < 15; i++) await t.http.get('/api/v1/widget/challenge').set('X-Api-Key', widget.key).expect(200);
    await t.http.patch(`/api/v1/api-keys/${widget.id}`).set(auth).send({ challengeWaitMs: null }).expect(200);
    expect((await effort()).body).toMatchObject({ waitMs: 500, waitFromPlan: true, surge: true, solves: 3 });

    expectError(await effort((await (await createAccount(t)).createKey()).id), 404, 'not_found');
    expectError(await effort('nope'), 400, 'validation_failed');
  });
});
