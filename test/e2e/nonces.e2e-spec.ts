import { NoncesService, NONCE_RETENTION_MS } from '../../src/nonces/nonces.service';
import { createAccount, expectError, expectRateLimitHeaders, startApp, TestAccount, TestApp } from '../utils/test-app';
import { issueNonce, solvedAltcha } from '../utils/widget';

describe('nonces', () => {
  let t: TestApp;
  let account: TestAccount;
  let widgetKey: string;
  let serverKey: string;

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t, 'pro');
    widgetKey = (await account.createKey({ scopes: ['widget'] })).key;
    serverKey = (await account.createKey({ scopes: ['verify'] })).key;
  }, 60_000);
  afterAll(() => t.close());

  const issue = (key = widgetKey) => issueNonce(t, key);
  const verify = (nonce: string, key = serverKey) => t.http.post('/api/v1/nonces/verify').set('X-Api-Key', key).send({ nonce });

  it('issues a 256-bit nonce that lives the account’s TTL (300 s by default), stored only as a hash', async () => {
    const before = Date.now();
    const altcha = await solvedAltcha(t, widgetKey);
    const res = await t.http.post('/api/v1/widget/nonces').set('X-Api-Key', widgetKey).send({ altcha }).expect(201);
    expectRateLimitHeaders(res);
    expect(res.body).toEqual({ nonce: expect.stringMatching(/^ghn_[A-Za-z0-9_-]{43}$/), expiresAt: expect.any(String) });
    const ttl = (Date.parse(res.body.expiresAt) - before) / 1000;
    expect(ttl).toBeGreaterThan(295);
    expect(ttl).toBeLessThanOrEqual(301);
    const rows = await t.prisma.nonce.findMany({ where: { accountId: account.id } });
    expect(JSON.stringify(rows)).not.toContain(res.body.nonce);
  });

  it('verifies a nonce once: valid with issuedAt, then already_used', async () => {
    const { nonce } = await issue();
    const first = await verify(nonce).expect(200);
    expect(first.body).toEqual({ valid: true, issuedAt: expect.any(String), hostname: null });
    expect(Date.parse(first.body.issuedAt)).toBeLessThanOrEqual(Date.now());
    expect((await verify(nonce).expect(200)).body).toEqual({ valid: false, reason: 'already_used' });
  });

  it('answers unknown for a nonce never issued, or issued to another account', async () => {
    expect((await verify(`ghn_${'A'.repeat(43)}`).expect(200)).body).toEqual({ valid: false, reason: 'unknown' });
    const other = await createAccount(t);
    const otherServer = (await other.createKey({ scopes: ['verify'] })).key;
    const { nonce } = await issue();
    expect((await verify(nonce, otherServer).expect(200)).body).toEqual({ valid: false, reason: 'unknown' });
    expect((await verify(nonce).expect(200)).body.valid).toBe(true); // still unused for its own account
  });

  it('answers expired past expiresAt', async () => {
    const { nonce } = await issue();
    await t.prisma.nonce.updateMany({ where: { accountId: account.id, usedAt: null }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await verify(nonce).expect(200)).body).toEqual({ valid: false, reason: 'expired' });
  });

  it('lets exactly one of many concurrent verifications succeed', async () => {
    const { nonce } = await issue();
    const answers = await Promise.all(Array.from({ length: 20 }, () => verify(nonce)));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(answers.filter((r) => r.body.valid === true)).toHaveLength(1);
    expect(answers.filter((r) => r.body.reason === 'already_used')).toHaveLength(19);
  });

  it('refuses a missing, non-string or over-long nonce and unknown fields with 400 validation_failed', async () => {
    for (const body of [{}, { nonce: 5 }, { nonce: null }, { nonce: 'x'.repeat(513) }, { nonce: `ghn_${'A'.repeat(43)}`, extra: 1 }]) {
      const res = await t.http.post('/api/v1/nonces/verify').set('X-Api-Key', serverKey).send(body);
      expectError(res, 400, 'validation_failed');
      expect(res.body.details.length).toBeGreaterThan(0);
    }
  });

  it('answers any other string as unknown: what a form received is a verdict, not a bad request', async () => {
    for (const nonce of ['', 'short', 'ghn_', `ghn_${'A'.repeat(42)}!`, 'x'.repeat(512), `ghn_${'A'.repeat(43)}`]) {
      const res = await verify(nonce);
      expect({ nonce, status: res.status, body: res.body }).toEqual({ nonce, status: 200, body: { valid: false, reason: 'unknown' } });
    }
  });

  it('purges nonces an hour after expiry, so storage stays bounded', async () => {
    const { nonce } = await issue();
    const old = new Date(Date.now() - NONCE_RETENTION_MS - 1000);
    await t.prisma.nonce.updateMany({ where: { accountId: account.id }, data: { expiresAt: old } });
    expect(await t.app.get(NoncesService).purge()).toBeGreaterThan(0);
    expect(await t.prisma.nonce.count({ where: { accountId: account.id } })).toBe(0);
    expect((await verify(nonce).expect(200)).body).toEqual({ valid: false, reason: 'unknown' });
  });

  it('takes the TTL from the account setting, bounded to 30..3600 s, and reports it in widget config', async () => {
    const auth = { Authorization: `Bearer ${account.owner.token}` };
    expectError(await t.http.patch('/api/v1/account').set(auth).send({ nonceTtlSeconds: 29 }), 400, 'validation_failed');
    expectError(await t.http.patch('/api/v1/account').set(auth).send({ nonceTtlSeconds: 3601 }), 400, 'validation_failed');
    await t.http.patch('/api/v1/account').set(auth).send({ nonceTtlSeconds: 60 }).expect(200);
    const config = await t.http.get('/api/v1/widget/config').set('X-Api-Key', widgetKey).expect(200);
    expect(config.body).toEqual({ accountId: account.id, nonceTtlSeconds: 60 });
    const before = Date.now();
    const { expiresAt } = await issue();
    expect((Date.parse(expiresAt) - before) / 1000).toBeLessThanOrEqual(61);
  });
});
