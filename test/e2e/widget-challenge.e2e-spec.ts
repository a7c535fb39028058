import { randomBytes } from 'node:crypto';
import { createChallenge, solveChallenge } from 'altcha-lib/v1';
import { CHALLENGE_TTL_MS } from '../../src/widget/challenges.service';
import {
  createAccount,
  createPlan,
  EASY_CHALLENGE,
  expectError,
  expectRateLimitHeaders,
  startApp,
  TestAccount,
  TestApp,
} from '../utils/test-app';
import { altchaPayload, issueNonce, noncesIssued, solvedAltcha } from '../utils/widget';

const OLD_SECRET = randomBytes(32).toString('hex');
const NEW_SECRET = randomBytes(32).toString('hex');
const SHOP = 'https://shop.example.com';
const PROXIES = '127.0.0.1,::1,::ffff:127.0.0.1';

describe('widget challenges', () => {
  let t: TestApp;
  let account: TestAccount;
  let widget: { id: string; key: string };
  let server: string;

  beforeAll(async () => {
    // Secrets after a rotation: NEW signs, OLD still verifies what it signed.
    t = await startApp({ WIDGET_SECRETS: `${NEW_SECRET},${OLD_SECRET}`, TRUST_PROXY: PROXIES });
    account = await createAccount(t);
    widget = await account.createKey({ scopes: ['widget'] });
    server = (await account.createKey({ scopes: ['verify'] })).key;
  }, 60_000);
  afterAll(() => t.close());

  const challenge = (key = widget.key, visitor = '203.0.113.1') =>
    t.http.get('/api/v1/widget/challenge').set('X-Api-Key', key).set('X-Forwarded-For', visitor);
  const redeem = (altcha: unknown, key = widget.key) =>
    t.http
      .post('/api/v1/widget/nonces')
      .set('X-Api-Key', key)
      .send(altcha === undefined ? {} : { altcha });
  const verify = (nonce: string) => t.http.post('/api/v1/nonces/verify').set('X-Api-Key', server).send({ nonce });
  const noncesSoFar = () => noncesIssued(t, account.owner.token);

  /** A challenge signed with `secret` for `keyId`, as another issuer (or an old one) would make it. */
  const signedElsewhere = async (secret: string, keyId: string, expires = new Date(Date.now() + 60_000)) => {
    const c = await createChallenge({ algorithm: 'SHA-256', hmacKey: secret, maxnumber: 1000, expires, params: { key: keyId } });
    const solution = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise;
    return altchaPayload({ ...c }, solution!.number);
  };

  it('answers a fresh ALTCHA challenge, signed, bound to the key, valid five minutes', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await challenge().expect(200);
    expectRateLimitHeaders(res);
    expect(res.body).toEqual({
      algorithm: 'SHA-256',
      challenge: expect.stringMatching(/^[0-9a-f]{64}$/),
      maxnumber: EASY_CHALLENGE,
      salt: expect.stringContaining(`key=${widget.id}`),
      signature: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const expires = Number(new URLSearchParams(res.body.salt.split('?')[1]).get('expires'));
    expect(expires - before).toBeGreaterThanOrEqual(CHALLENGE_TTL_MS / 1000 - 1);
    expect(expires - before).toBeLessThanOrEqual(CHALLENGE_TTL_MS / 1000 + 1);
    expect((await challenge().expect(200)).body.challenge).not.toBe(res.body.challenge);
  });

  it('exchanges a solution for one nonce, once: the same solution again is 422 and issues nothing', async () => {
    const altcha = await solvedAltcha(t, widget.key);
    const issued = await redeem(altcha).expect(201);
    expect(issued.body.nonce).toMatch(/^ghn_/);
    const rows = await noncesSoFar();
    expectError(await redeem(altcha), 422, 'challenge_failed');
    expect(await noncesSoFar()).toBe(rows);
    expect((await verify(issued.body.nonce).expect(200)).body).toMatchObject({ valid: true });
  });

  it('lets exactly one of many concurrent redemptions of a solution through', async () => {
    const altcha = await solvedAltcha(t, widget.key);
    const answers = await Promise.all(Array.from({ length: 10 }, () => redeem(altcha)));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 422 && r.body.error === 'challenge_failed')).toHaveLength(9);
  });

  it('records the page the challenge was solved on, and verify answers it as hostname', async () => {
    const { key } = await account.createKey({ scopes: ['widget'], allowedOrigins: [SHOP] });
    const { nonce } = await issueNonce(t, key, SHOP);
    expect((await verify(nonce).expect(200)).body).toEqual({ valid: true, issuedAt: expect.any(String), hostname: 'shop.example.com' });
  });

  it('still accepts a challenge signed by a rotated-out secret that is kept for verifying', async () => {
    await redeem(await signedElsewhere(OLD_SECRET, widget.id)).expect(201);
  });

  describe('refuses, with 422 challenge_failed and no nonce', () => {
    const refused = async (altcha: string, key = widget.key) => {
      const rows = await noncesSoFar();
      const res = await redeem(altcha, key);
      expectError(res, 422, 'challenge_failed');
      expectRateLimitHeaders(res);
      expect(await noncesSoFar()).toBe(rows);
    };

    it('a payload that is not base64 JSON of a solution', async () => {
      await refused('%%% not base64 %%%');
      await refused(Buffer.from('not json').toString('base64'));
      await refused(Buffer.from('[1,2,3]').toString('base64'));
      await refused(Buffer.from(JSON.stringify({ algorithm: 'SHA-256', number: 'seven' })).toString('base64'));
      await refused('');
    });

    it('a wrong number', async () => {
      const res = await challenge().expect(200);
      const solution = await solveChallenge(res.body.challenge, res.body.salt, res.body.algorithm, res.body.maxnumber).promise;
      await refused(altchaPayload(res.body, solution!.number + 1));
    });

    it('a forged signature, or a challenge signed by a secret Gatehouse does not hold', async () => {
      const res = await challenge().expect(200);
      const solution = await solveChallenge(res.body.challenge, res.body.salt, res.body.algorithm, res.body.maxnumber).promise;
      await refused(altchaPayload({ ...res.body, signature: 'f'.repeat(64) }, solution!.number));
      await refused(await signedElsewhere(randomBytes(32).toString('hex'), widget.id));
    });

    it('a solution of a challenge issued to another key, of this account or another', async () => {
      const sibling = await account.createKey({ scopes: ['widget'] });
      await refused(await solvedAltcha(t, sibling.key));
      const other = await (await createAccount(t)).createKey({ scopes: ['widget'] });
      await refused(await solvedAltcha(t, other.key));
      await refused(await solvedAltcha(t, widget.key), other.key);
    });

    it('an expired challenge', async () => {
      await refused(await signedElsewhere(NEW_SECRET, widget.id, new Date(Date.now() - 1000)));
    });
  });

  it('answers 400 for a missing, non-string or over-long altcha', async () => {
    expectError(await redeem(undefined), 400, 'validation_failed');
    expectError(await redeem(42), 400, 'validation_failed');
    expectError(await redeem('a'.repeat(4097)), 400, 'validation_failed');
  });

  describe('difficulty', () => {
    it('is the plan’s default unless the key has its own, which the key routes show and change', async () => {
      const auth = { Authorization: `Bearer ${account.owner.token}` };
      const created = await account.createKey({ scopes: ['widget'], challengeMaxNumber: null });
      const plan = (await t.http.get('/api/v1/plans').set(auth).expect(200)).body.data.find((p: { id: string }) => p.id === 'free');
      expect(plan.challengeMaxNumber).toBe(100_000);
      expect((await challenge(created.key).expect(200)).body.maxnumber).toBe(plan.challengeMaxNumber);
      const patched = await t.http.patch(`/api/v1/api-keys/${created.id}`).set(auth).send({ challengeMaxNumber: 5000 }).expect(200);
      expect(patched.body.challengeMaxNumber).toBe(5000);
      expect((await t.http.get(`/api/v1/api-keys/${created.id}`).set(auth).expect(200)).body.challengeMaxNumber).toBe(5000);
      expect((await challenge(created.key, '203.0.113.50').expect(200)).body.maxnumber).toBe(5000);
      for (const bad of [999, 10_000_001, 1.5, '5000']) {
        expectError(
          await t.http.patch(`/api/v1/api-keys/${created.id}`).set(auth).send({ challengeMaxNumber: bad }),
          400,
          'validation_failed',
        );
      }
      await t.http.patch(`/api/v1/api-keys/${created.id}`).set(auth).send({ challengeMaxNumber: null }).expect(200);
      expect((await challenge(created.key, '203.0.113.51').expect(200)).body.maxnumber).toBe(plan.challengeMaxNumber);
    });

    it('rises while one visitor asks far faster than usual, for that visitor only', async () => {
      const { key } = await account.createKey({ scopes: ['widget'] });
      const levels: number[] = [];
      for (let i = 0; i < 25; i++) levels.push((await challenge(key, '198.51.100.7').expect(200)).body.maxnumber);
      expect(levels[0]).toBe(EASY_CHALLENGE);
      expect(levels[levels.length - 1]).toBeGreaterThanOrEqual(4 * EASY_CHALLENGE); // docs/API.md: ×4 at 8× the usual rate
      expect([...levels].sort((a, b) => a - b)).toEqual(levels); // never falls during the surge
      expect((await challenge(key, '198.51.100.8').expect(200)).body.maxnumber).toBe(EASY_CHALLENGE);
    });
  });

  it('counts the widget’s figures per key for analytics, apart from request counts', async () => {
    const { id, key } = await account.createKey({ scopes: ['widget'] });
    const { nonce } = await issueNonce(t, key); // issued 1, solved 1
    await challenge(key).expect(200); // issued 2
    expectError(await redeem('garbage', key), 422, 'challenge_failed'); // failed 1
    const verifier = await account.createKey({ scopes: ['verify'] });
    for (const n of [nonce, nonce, 'not a nonce']) {
      await t.http.post('/api/v1/nonces/verify').set('X-Api-Key', verifier.key).send({ nonce: n }).expect(200); // valid, then invalid twice
    }
    const auth = { Authorization: `Bearer ${account.owner.token}` };
    const byKey = await t.http.get('/api/v1/analytics/widget').query({ groupBy: 'apiKey' }).set(auth).expect(200);
    expect(byKey.body.data.find((r: { key: string }) => r.key === id)).toEqual({
      key: id,
      challengesIssued: 2,
      challengesSolved: 1,
      challengesFailed: 1,
      noncesValid: 0,
      noncesInvalid: 0,
    });
    expect(byKey.body.data.find((r: { key: string }) => r.key === verifier.id)).toMatchObject({ noncesValid: 1, noncesInvalid: 2 });
    const perMinute = await t.http.get('/api/v1/analytics/widget').query({ groupBy: 'minute', apiKeyId: id }).set(auth).expect(200);
    expect(perMinute.body.data.reduce((n: number, r: { challengesIssued: number }) => n + r.challengesIssued, 0)).toBe(2);
    const endpoints = await t.http.get('/api/v1/analytics/usage').query({ groupBy: 'endpoint', apiKeyId: id }).set(auth).expect(200);
    expect(endpoints.body.data).toEqual([
      { key: 'GET /api/v1/widget/challenge', count: 2 },
      { key: 'POST /api/v1/widget/nonces', count: 2 },
    ]);
  });

  describe('per visitor', () => {
    let limited: TestApp;
    let key: string;

    beforeAll(async () => {
      limited = await startApp({ WIDGET_VISITOR_PER_MINUTE: '5', TRUST_PROXY: PROXIES });
      // A key allowed 8 challenges a minute, shared by every visitor.
      key = (await (await createAccount(limited, await createPlan(limited, 8, 100))).createKey({ scopes: ['widget'] })).key;
    }, 60_000);
    afterAll(() => limited.close());

    const ask = (visitor: string) => limited.http.get('/api/v1/widget/challenge').set('X-Api-Key', key).set('X-Forwarded-For', visitor);

    it('limits each visitor (client IP) on its own, and a refused visitor spends nothing of the key’s allowance', async () => {
      for (let i = 0; i < 5; i++) await ask('192.0.2.1').expect(200);
      for (let i = 0; i < 10; i++) {
        const res = await ask('192.0.2.1');
        expectError(res, 429, 'rate_limit_exceeded');
        expect(res.headers['x-ratelimit-limit']).toBe('5');
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      // Another visitor still has the rest of the key's allowance: 8 − 5, the headers showing the key's count.
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) remaining.push((await ask('192.0.2.2').expect(200)).headers['x-ratelimit-remaining']);
      expect(remaining).toEqual(['2', '1', '0']);
      const spent = await ask('192.0.2.3');
      expectError(spent, 429, 'rate_limit_exceeded');
      expect(spent.headers['x-ratelimit-limit']).toBe('8');
    });
  });
});
