import { randomBytes, randomUUID } from 'node:crypto';
import { createChallenge as createV1Challenge, solveChallenge as solveV1Challenge } from 'altcha-lib/v1';
import { CHALLENGE_TTL_MS } from '../../src/widget/challenges.service';
import { expectedSolveMs, makeChallenge, MAX_COUNTER, powKeys, type ChallengeBinding } from '../../src/widget/pow';
import {
  createAccount,
  createPlan,
  EASY_CHALLENGE,
  expectError,
  expectRateLimitHeaders,
  startApp,
  TEST_PASSWORD,
  TestAccount,
  TestApp,
} from '../utils/test-app';
import { altchaPayload, issueNonce, solve, type V2Challenge } from '../utils/widget';

const OLD_SECRET = randomBytes(32).toString('hex');
const NEW_SECRET = randomBytes(32).toString('hex');
const METRICS_TOKEN = 'metrics-token-for-widget-challenges-0123';
const SHOP = 'https://shop.example.com';
const PROXIES = '127.0.0.1,::1,::ffff:127.0.0.1';
const HEX_64 = /^[0-9a-f]{64}$/;
const HEX_32 = /^[0-9a-f]{32}$/;
/** The largest counter at the least difficulty: a counter above it shows a challenge harder than that. */
const EASIEST_MAX = MAX_COUNTER[EASY_CHALLENGE];

type Solved = { challenge: V2Challenge; solution: { counter: number; derivedKey: string }; altcha: string };

describe('widget challenges (ALTCHA v2, PBKDF2/SHA-256 in counter mode)', () => {
  let t: TestApp;
  let account: TestAccount;
  let widget: { id: string; key: string };
  let server: string;
  let visitors = 0;

  beforeAll(async () => {
    // Secrets after a rotation: NEW signs, OLD still verifies what it signed.
    t = await startApp({ WIDGET_SECRETS: `${NEW_SECRET},${OLD_SECRET}`, TRUST_PROXY: PROXIES, SIGNUP: 'open', METRICS_TOKEN });
    account = await createAccount(t, 'pro');
    widget = await account.createKey({ scopes: ['widget'] });
    server = (await account.createKey({ scopes: ['verify'] })).key;
  }, 60_000);
  afterAll(() => t.close());

  /** A client IP of its own for each request unless a test means one visitor: no visitor limit or surge between tests. */
  const visitor = () => {
    visitors += 1;
    return `10.${(visitors >> 16) & 255}.${(visitors >> 8) & 255}.${visitors & 255}`;
  };
  const challenge = (key = widget.key, ip = visitor()) =>
    t.http.get('/api/v1/widget/challenge').set('X-Api-Key', key).set('X-Forwarded-For', ip);
  const redeem = (altcha: unknown, key = widget.key, origin?: string) => {
    const req = t.http.post('/api/v1/widget/nonces').set('X-Api-Key', key).set('X-Forwarded-For', visitor());
    return (origin === undefined ? req : req.set('Origin', origin)).send(altcha === undefined ? {} : { altcha });
  };
  const verify = (nonce: string) => t.http.post('/api/v1/nonces/verify').set('X-Api-Key', server).send({ nonce });
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

  /** What the widget does: a challenge fetched with the key, solved. */
  const solved = async (key = widget.key): Promise<Solved> => {
    const res = await challenge(key).expect(200);
    const solution = solve(res.body);
    return { challenge: res.body, solution, altcha: altchaPayload(res.body, solution) };
  };

  /** A challenge signed with `secret`, as this deployment (or another) would make it; easy, so quick to solve. */
  const signed = async (secret: string, binding: ChallengeBinding, options: { now?: number; surge?: number } = {}) => {
    const challenge = await makeChallenge(powKeys(secret), {
      binding,
      max: 30,
      surge: options.surge ?? 0,
      ttlMs: CHALLENGE_TTL_MS,
      now: options.now,
    });
    return altchaPayload(challenge, solve(challenge as unknown as V2Challenge));
  };

  /** PBKDF2 derivations made so far (the app's /metrics). */
  const derivations = async (): Promise<number> => {
    const res = await t.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    return Number(/^gatehouse_widget_derivations_total (\d+)$/m.exec(res.text)![1]);
  };

  /** The account's widget figures per key, as analytics counts them. */
  const figures = async (keyId: string) => {
    const res = await t.http
      .get('/api/v1/analytics/widget')
      .query({ groupBy: 'apiKey' })
      .set('Authorization', `Bearer ${account.owner.token}`)
      .expect(200);
    const row = (res.body.data as Array<Record<string, number> & { key: string }>).find((r) => r.key === keyId);
    const figure = (field: string) => row?.[field] ?? 0;
    return {
      issued: figure('challengesIssued'),
      solved: figure('challengesSolved'),
      failed: figure('challengesFailed'),
      why: {
        invalid: figure('challengesFailedInvalid'),
        expired: figure('challengesFailedExpired'),
        alreadyUsed: figure('challengesFailedAlreadyUsed'),
        origin: figure('challengesFailedOrigin'),
      },
    };
  };
  const NO_FAILURES = { invalid: 0, expired: 0, alreadyUsed: 0, origin: 0 };

  it('answers an ALTCHA v2 challenge: PBKDF2/SHA-256 at cost 1000, bound to the key, signed, valid five minutes', async () => {
    const before = Date.now();
    const res = await challenge().expect(200);
    const after = Date.now();
    expectRateLimitHeaders(res);
    expect(res.body).toEqual({
      parameters: {
        algorithm: 'PBKDF2/SHA-256',
        nonce: expect.stringMatching(HEX_32),
        salt: expect.stringMatching(HEX_32),
        cost: 1000,
        keyLength: 32,
        keyPrefix: expect.stringMatching(HEX_32),
        keySignature: expect.stringMatching(HEX_64),
        expiresAt: expect.any(Number),
        data: { key: widget.id, issuedAt: expect.any(Number), surge: 0, tag: expect.stringMatching(HEX_32) },
      },
      signature: expect.stringMatching(HEX_64),
    });
    const { issuedAt } = res.body.parameters.data;
    expect(issuedAt).toBeGreaterThanOrEqual(before);
    expect(issuedAt).toBeLessThanOrEqual(after);
    expect(res.body.parameters.expiresAt).toBe(Math.floor((issuedAt + CHALLENGE_TTL_MS) / 1000));
    const next = (await challenge().expect(200)).body.parameters;
    for (const field of ['nonce', 'salt', 'keyPrefix']) expect(next[field]).not.toBe(res.body.parameters[field]);
  });

  it('exchanges a solution for one nonce, whose verdict tells the page and the work; the same solution again is 422 and counts once', async () => {
    const shopKey = await account.createKey({ scopes: ['widget'], allowedOrigins: [SHOP] });
    const res = await challenge(shopKey.key).set('Origin', SHOP).expect(200);
    const solution = solve(res.body);
    const altcha = altchaPayload(res.body, solution);
    const issued = await redeem(altcha, shopKey.key, SHOP).expect(201);
    expectRateLimitHeaders(issued);
    expect(issued.body).toEqual({ nonce: expect.stringMatching(/^ghn_/), expiresAt: expect.any(String) });
    expectError(await redeem(altcha, shopKey.key, SHOP), 422, 'challenge_failed');
    expect(await figures(shopKey.id)).toEqual({ issued: 1, solved: 1, failed: 1, why: { ...NO_FAILURES, alreadyUsed: 1 } });
    const verdict = (await verify(issued.body.nonce).expect(200)).body;
    expect(verdict).toEqual({
      valid: true,
      issuedAt: expect.any(String),
      hostname: 'shop.example.com',
      effort: {
        algorithm: 'PBKDF2/SHA-256',
        cost: 1000,
        expectedSolveMs: expectedSolveMs(solution.counter), // this very challenge's solution
        solveMs: expect.any(Number),
        surge: false,
      },
    });
    expect(verdict.effort.solveMs).toBeGreaterThanOrEqual(0);
  });

  it('lets exactly one of many concurrent redemptions of a solution through', async () => {
    const { altcha } = await solved();
    const answers = await Promise.all(Array.from({ length: 10 }, () => redeem(altcha)));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 422 && r.body.error === 'challenge_failed')).toHaveLength(9);
  });

  it('accepts a challenge signed by the current secret, or by a rotated-out one kept for verifying', async () => {
    await redeem(await signed(NEW_SECRET, { key: widget.id })).expect(201);
    await redeem(await signed(OLD_SECRET, { key: widget.id })).expect(201);
  });

  describe('refuses with 422 challenge_failed: no nonce, one failure counted with its reason, nothing derived', () => {
    let key: { id: string; key: string };
    beforeAll(async () => (key = await account.createKey({ scopes: ['widget'] })));

    const refused = async (altcha: string, reason: keyof typeof NO_FAILURES = 'invalid') => {
      const [was, derived] = [await figures(key.id), await derivations()];
      const res = await redeem(altcha, key.key);
      expectError(res, 422, 'challenge_failed');
      expectRateLimitHeaders(res);
      expect(await figures(key.id)).toEqual({ ...was, failed: was.failed + 1, why: { ...was.why, [reason]: was.why[reason] + 1 } });
      expect(await derivations()).toBe(derived);
      return res;
    };
    /** The untouched solution still gets its nonce: what was refused was the change, and it spent nothing. */
    const stillGood = async ({ altcha }: Solved) => {
      const was = await figures(key.id);
      await redeem(altcha, key.key).expect(201);
      expect(await figures(key.id)).toEqual({ ...was, solved: was.solved + 1 });
    };

    it('anything but base64 JSON of a v2 solution: ALTCHA v1’s format too, even signed with this deployment’s secret', async () => {
      for (const altcha of [
        '',
        '%%% not base64 %%%',
        encode('not json').slice(1),
        Buffer.from('not json').toString('base64'),
        encode([1, 2, 3]),
        encode({ challenge: {}, solution: {} }),
        'a'.repeat(4096), // the longest accepted, then refused as no solution
      ]) {
        await refused(altcha);
      }
      const v1 = await createV1Challenge({ algorithm: 'SHA-256', hmacKey: NEW_SECRET, maxnumber: 1000, params: { key: key.id } });
      const { number } = (await solveV1Challenge(v1.challenge, v1.salt, v1.algorithm, v1.maxnumber).promise)!;
      await refused(encode({ ...v1, number }));
    });

    it('a challenge changed after it was signed: algorithm, cost, keyPrefix, keySignature, the key, the expiry', async () => {
      const good = await solved(key.key);
      const p = good.challenge.parameters;
      for (const changed of [
        { algorithm: 'SHA-256' },
        { algorithm: 'PBKDF2/SHA-512' },
        { cost: 1 },
        { cost: 1001 },
        { keyPrefix: p.keyPrefix.slice(0, 2) },
        { keySignature: 'ab'.repeat(32) },
        { data: { ...(p.data as object), key: widget.id } },
        { expiresAt: (p.expiresAt as number) + 3600 },
      ]) {
        await refused(altchaPayload({ ...good.challenge, parameters: { ...p, ...changed } }, good.solution));
      }
      await stillGood(good);
    });

    it('a counter that is not the solution or not a uint32, or a derived key that is not the solution’s', async () => {
      const good = await solved(key.key);
      const { counter } = good.solution;
      for (const wrong of [counter + 1, counter + 2 ** 32, 2 ** 32, -1, 1.5, String(counter), null]) {
        await refused(altchaPayload(good.challenge, { ...good.solution, counter: wrong as number }));
      }
      if (counter > 0) await refused(altchaPayload(good.challenge, { ...good.solution, counter: counter - 1 }));
      for (const derivedKey of [
        '00'.repeat(32),
        good.challenge.parameters.keyPrefix + '00'.repeat(16),
        good.solution.derivedKey.slice(2),
      ]) {
        await refused(altchaPayload(good.challenge, { ...good.solution, derivedKey }));
      }
      await stillGood(good);
    });

    it('an expired challenge, told apart when it was solved', async () => {
      const late = await signed(NEW_SECRET, { key: key.id }, { now: Date.now() - CHALLENGE_TTL_MS - 1000 });
      expect((await refused(late, 'expired')).body.message).toBe(
        'This challenge expired before its solution was sent; solve a new challenge.',
      );
      const { challenge, solution } = JSON.parse(Buffer.from(late, 'base64').toString()) as Pick<Solved, 'challenge' | 'solution'>;
      await refused(altchaPayload(challenge, { ...solution, counter: solution.counter + 1 }), 'invalid');
      await redeem(await signed(NEW_SECRET, { key: key.id }, { now: Date.now() - CHALLENGE_TTL_MS + 30_000 }), key.key).expect(201);
    });

    it('a forged signature, or a challenge signed by a secret Gatehouse does not hold', async () => {
      const good = await solved(key.key);
      await refused(altchaPayload({ ...good.challenge, signature: 'f'.repeat(64) }, good.solution));
      await refused(altchaPayload({ ...good.challenge, signature: good.challenge.signature.toUpperCase() }, good.solution));
      await refused(await signed(randomBytes(32).toString('hex'), { key: key.id }));
      await stillGood(good);
    });

    it('a challenge issued to another key, of this account or another', async () => {
      const sibling = await account.createKey({ scopes: ['widget'] });
      const theirs = await solved(sibling.key);
      await refused(theirs.altcha);
      await redeem(theirs.altcha, sibling.key).expect(201); // it was a good solution, for its own key
      const other = await (await createAccount(t)).createKey({ scopes: ['widget'] });
      await refused(await signed(NEW_SECRET, { key: other.id }));
    });

    it('the sign-up form’s challenge; and a widget challenge is refused for sign-up', async () => {
      const res = await t.http.get('/api/v1/auth/signup/challenge').set('X-Forwarded-For', visitor()).expect(200);
      expect(res.body.parameters.data).toEqual({
        purpose: 'signup',
        issuedAt: expect.any(Number),
        surge: 0,
        tag: expect.stringMatching(HEX_32),
      });
      const signupAltcha = altchaPayload(res.body, solve(res.body));
      await refused(signupAltcha);
      const signup = (altcha: string) =>
        t.http
          .post('/api/v1/auth/signup')
          .set('X-Forwarded-For', visitor())
          .send({ email: `founder-${randomUUID()}@example.com`, password: TEST_PASSWORD, accountName: 'Founder', altcha });
      await signup(signupAltcha).expect(202); // good for what it was issued for

      const widgetSolution = await solved(key.key);
      expectError(await signup(widgetSolution.altcha), 422, 'challenge_failed');
      await stillGood(widgetSolution);
    });
  });

  it('answers 400 for a missing, non-string or over-long (4096+) altcha', async () => {
    expectError(await redeem(undefined), 400, 'validation_failed');
    expectError(await redeem(42), 400, 'validation_failed');
    expectError(await redeem(null), 400, 'validation_failed');
    expectError(await redeem('a'.repeat(4097)), 400, 'validation_failed');
  });

  describe('difficulty', () => {
    /** Whether one of a few challenges needs a counter above the least difficulty's largest (searching no further than that). */
    const harderThanEasiest = async (key: string): Promise<boolean> => {
      // At MAX 21,000 a counter is at most 1,700 once in 12; six in a row, once in 3.5 million.
      for (let i = 0; i < 6; i++) {
        const res = await challenge(key).expect(200);
        try {
          solve(res.body, EASIEST_MAX);
        } catch {
          return true;
        }
      }
      return false;
    };

    it('is the key’s visitor wait, else its plan’s; changing the key’s (PATCH) changes the challenges it gets', async () => {
      const auth = { Authorization: `Bearer ${account.owner.token}` };
      const plan = await createPlan(t, 600, 600);
      await t.prisma.plan.update({ where: { id: plan }, data: { challengeWaitMs: 2000 } });
      const slow = await createAccount(t, plan);
      const slowAuth = { Authorization: `Bearer ${slow.owner.token}` };
      expect((await t.http.get('/api/v1/account').set(slowAuth).expect(200)).body.plan.challengeWaitMs).toBe(2000);
      const key = await slow.createKey({ scopes: ['widget'], challengeWaitMs: null });
      expect((await t.http.get(`/api/v1/api-keys/${key.id}`).set(slowAuth).expect(200)).body.challengeWaitMs).toBeNull();
      expect(await harderThanEasiest(key.key)).toBe(true); // the plan's 2 s

      const patched = await t.http.patch(`/api/v1/api-keys/${key.id}`).set(slowAuth).send({ challengeWaitMs: 250 }).expect(200);
      expect(patched.body.challengeWaitMs).toBe(250);
      expect((await t.http.get(`/api/v1/api-keys/${key.id}`).set(slowAuth).expect(200)).body.challengeWaitMs).toBe(250);
      // Now every challenge is solved within the least difficulty's counters (at the plan's, 3 in a row would be once in 1,800).
      for (let i = 0; i < 3; i++) solve((await challenge(key.key).expect(200)).body, EASIEST_MAX);

      await t.http.patch(`/api/v1/api-keys/${key.id}`).set(slowAuth).send({ challengeWaitMs: null }).expect(200);
      expect(await harderThanEasiest(key.key)).toBe(true); // the plan's again
      // Another account's keys are not its business.
      expectError(await t.http.patch(`/api/v1/api-keys/${key.id}`).set(auth).send({ challengeWaitMs: 250 }), 404, 'not_found');
    });

    it('rises while one visitor asks far faster than usual, for that visitor only; verify tells a surged solution', async () => {
      const { id, key } = await account.createKey({ scopes: ['widget'] });
      const one = visitor();
      const levels: number[] = [];
      for (let i = 0; i < 25; i++) levels.push((await challenge(key, one).expect(200)).body.parameters.data.surge);
      expect(levels[0]).toBe(0);
      expect(levels[levels.length - 1]).toBeGreaterThanOrEqual(2); // docs/API.md: ×4 the work at 8× the usual rate
      expect([...levels].sort((a, b) => a - b)).toEqual(levels); // never falls during the surge
      expect((await challenge(key).expect(200)).body.parameters.data.surge).toBe(0);

      const { nonce } = (await redeem(await signed(NEW_SECRET, { key: id }, { surge: 2 }), key).expect(201)).body;
      expect((await verify(nonce).expect(200)).body.effort).toMatchObject({ surge: true });
    });
  });

  it('derives once for an accepted challenge, and nothing for a request refused before it: unknown, revoked, another site, over a limit', async () => {
    let derived = await derivations();
    const derivedSince = async () => {
      const now = await derivations();
      const moved = now - derived;
      derived = now;
      return moved;
    };
    await challenge().expect(200);
    expect(await derivedSince()).toBe(1);

    expectError(await challenge(`gh_${randomBytes(24).toString('base64url')}`), 401, 'invalid_api_key');
    const revoked = await account.createKey({ scopes: ['widget'] });
    await t.http.delete(`/api/v1/api-keys/${revoked.id}`).set('Authorization', `Bearer ${account.owner.token}`).expect(200);
    expectError(await challenge(revoked.key), 401, 'invalid_api_key');
    const shop = await account.createKey({ scopes: ['widget'], allowedOrigins: [SHOP] });
    expectError(await challenge(shop.key).set('Origin', 'https://elsewhere.example.com'), 403, 'insufficient_permissions');
    expect(await derivedSince()).toBe(0);

    // A key allowed 33 challenges a minute by its plan; each visitor WIDGET_VISITOR_PER_MINUTE (30) of them.
    const perVisitor = t.config.limits.widgetVisitorPerMinute;
    expect(perVisitor).toBe(30);
    const limited = await (await createAccount(t, await createPlan(t, perVisitor + 3, 100))).createKey({ scopes: ['widget'] });
    const busy = visitor();
    for (let i = 0; i < perVisitor; i++) await challenge(limited.key, busy).expect(200);
    expect(await derivedSince()).toBe(perVisitor);
    for (let i = 0; i < 5; i++) {
      const res = await challenge(limited.key, busy);
      expectError(res, 429, 'rate_limit_exceeded');
      expect(res.headers['x-ratelimit-limit']).toBe(String(perVisitor));
    }
    expect(await derivedSince()).toBe(0);
    // Another visitor has the rest of the key's allowance (the refused visitor spent none of it), then the key's limit refuses.
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) remaining.push((await challenge(limited.key).expect(200)).headers['x-ratelimit-remaining']);
    expect(remaining).toEqual(['2', '1', '0']);
    expect(await derivedSince()).toBe(3);
    const spent = await challenge(limited.key);
    expectError(spent, 429, 'rate_limit_exceeded');
    expect(spent.headers['x-ratelimit-limit']).toBe(String(perVisitor + 3));
    expect(await derivedSince()).toBe(0);
  });

  it('counts the widget’s figures per key for analytics, apart from request counts', async () => {
    const { id, key } = await account.createKey({ scopes: ['widget'], allowedOrigins: [SHOP] });
    const { nonce } = await issueNonce(t, key, SHOP); // issued 1, solved 1
    await challenge(key).set('Origin', SHOP).expect(200); // issued 2
    expectError(await redeem('garbage', key, SHOP), 422, 'challenge_failed'); // failed 1
    const derived = await derivations();
    expectError(await challenge(key).set('Origin', 'https://elsewhere.example.com'), 403, 'insufficient_permissions'); // failed 2
    expect(await derivations()).toBe(derived);
    // A solution handed in from another site is refused too, but is no challenge request: not counted as failed.
    expectError(await redeem('garbage', key, 'https://elsewhere.example.com'), 403, 'insufficient_permissions');
    const verifier = await account.createKey({ scopes: ['verify'] });
    for (const n of [nonce, nonce, 'not a nonce']) {
      await t.http.post('/api/v1/nonces/verify').set('X-Api-Key', verifier.key).send({ nonce: n }).expect(200); // valid, then already_used and unknown
    }
    const auth = { Authorization: `Bearer ${account.owner.token}` };
    const byKey = await t.http.get('/api/v1/analytics/widget').query({ groupBy: 'apiKey' }).set(auth).expect(200);
    expect(byKey.body.data.find((r: { key: string }) => r.key === id)).toEqual({
      key: id,
      challengesIssued: 2,
      challengesSolved: 1,
      challengesFailed: 2,
      challengesFailedInvalid: 1,
      challengesFailedExpired: 0,
      challengesFailedAlreadyUsed: 0,
      challengesFailedOrigin: 1,
      noncesValid: 0,
      noncesInvalid: 0,
      noncesUnknown: 0,
      noncesExpired: 0,
      noncesAlreadyUsed: 0,
    });
    expect(byKey.body.data.find((r: { key: string }) => r.key === verifier.id)).toMatchObject({
      noncesValid: 1,
      noncesInvalid: 2,
      noncesUnknown: 1,
      noncesExpired: 0,
      noncesAlreadyUsed: 1,
    });
    const perMinute = await t.http.get('/api/v1/analytics/widget').query({ groupBy: 'minute', apiKeyId: id }).set(auth).expect(200);
    expect(perMinute.body.data.reduce((n: number, r: { challengesIssued: number }) => n + r.challengesIssued, 0)).toBe(2);
    const endpoints = await t.http.get('/api/v1/analytics/usage').query({ groupBy: 'endpoint', apiKeyId: id }).set(auth).expect(200);
    expect(endpoints.body.data).toEqual([
      { key: 'GET /api/v1/widget/challenge', count: 3 },
      { key: 'POST /api/v1/widget/nonces', count: 3 },
    ]);
  });
});
