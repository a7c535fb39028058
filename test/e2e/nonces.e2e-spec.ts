import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKey, hashApiKey, visiblePrefix } from '../../src/api-keys/api-key-secret';
import { hashOneTimeToken, newOneTimeToken } from '../../src/common/one-time-token';
import { newNonceId, nonceKeys, signNonce } from '../../src/nonces/nonce-token';
import { NoncesService, NONCE_RETENTION_MS } from '../../src/nonces/nonces.service';
import { DatabaseSpentStore, RedisSpentStore, SpentStore } from '../../src/nonces/spent-store';
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

  /** What a crafted nonce's proof of work cost. */
  const EFFORT = { algorithm: 'PBKDF2/SHA-256' as const, cost: 1000, expectedSolveMs: 306, solveMs: 1200, surgeLevel: 0 };

  /** A nonce as this app signs them, with fields of the test's choosing. */
  const craft = (fields: { accountId?: string; issuedAt?: number; expiresAt?: number }, secret = t.config.widget.secrets[0]) => {
    const now = Math.floor(Date.now() / 1000);
    return signNonce(
      { accountId: account.id, id: newNonceId(), issuedAt: now, expiresAt: now + 300, hostname: null, effort: EFFORT, ...fields },
      nonceKeys([secret])[0],
    );
  };

  /**
   * A version 1 nonce token, as Gatehouse issued them before it recorded the effort (made by hand as
   * src/nonces/nonce-token.spec.ts does): version · account · id · issued · expires · hostname · HMAC.
   */
  const craftV1 = (hostname: string) => {
    const now = Math.floor(Date.now() / 1000);
    const body = Buffer.alloc(41 + Buffer.byteLength(hostname));
    body[0] = 1;
    Buffer.from(account.id.replace(/-/g, ''), 'hex').copy(body, 1);
    Buffer.from(newNonceId(), 'hex').copy(body, 17);
    body.writeUInt32BE(now, 33);
    body.writeUInt32BE(now + 300, 37);
    body.write(hostname, 41);
    const mac = createHmac('sha256', nonceKeys([t.config.widget.secrets[0]])[0])
      .update(body)
      .digest();
    return `ghn_${Buffer.concat([body, mac]).toString('base64url')}`;
  };

  it('issues a signed nonce that lives the account’s TTL (300 s by default), and stores nothing to issue it', async () => {
    const before = Date.now();
    const altcha = await solvedAltcha(t, widgetKey);
    const res = await t.http.post('/api/v1/widget/nonces').set('X-Api-Key', widgetKey).send({ altcha }).expect(201);
    expectRateLimitHeaders(res);
    expect(res.body).toEqual({ nonce: expect.stringMatching(/^ghn_[A-Za-z0-9_-]{90,454}$/), expiresAt: expect.any(String) });
    const ttl = (Date.parse(res.body.expiresAt) - before) / 1000;
    expect(ttl).toBeGreaterThan(295);
    expect(ttl).toBeLessThanOrEqual(301);
    expect(await t.prisma.nonce.count({ where: { accountId: account.id } })).toBe(0);
  });

  it('verifies a nonce once: valid with issuedAt and the effort of its proof of work, then already_used', async () => {
    const { nonce } = await issue();
    const first = await verify(nonce).expect(200);
    expect(first.body).toEqual({
      valid: true,
      issuedAt: expect.any(String),
      hostname: null,
      effort: { algorithm: 'PBKDF2/SHA-256', cost: 1000, expectedSolveMs: expect.any(Number), solveMs: expect.any(Number), surge: false },
    });
    for (const ms of [first.body.effort.expectedSolveMs, first.body.effort.solveMs]) {
      expect(Number.isInteger(ms) && ms >= 0).toBe(true);
    }
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
    expect((await verify(craft({ accountId: other.id })).expect(200)).body).toEqual({ valid: false, reason: 'unknown' });
  });

  it('answers unknown for a nonce signed with another secret, or changed by one character', async () => {
    expect((await verify(craft({}, randomBytes(32).toString('hex'))).expect(200)).body).toEqual({ valid: false, reason: 'unknown' });
    const { nonce } = await issue();
    const changed = nonce.slice(0, 30) + (nonce[30] === 'A' ? 'B' : 'A') + nonce.slice(31);
    expect((await verify(changed).expect(200)).body).toEqual({ valid: false, reason: 'unknown' });
    expect((await verify(nonce).expect(200)).body.valid).toBe(true);
  });

  it('answers expired past expiresAt', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await verify(craft({ issuedAt: now - 301, expiresAt: now - 1 })).expect(200)).body).toEqual({
      valid: false,
      reason: 'expired',
    });
    expect((await verify(craft({})).expect(200)).body).toEqual({
      valid: true,
      issuedAt: expect.any(String),
      hostname: null,
      effort: { algorithm: 'PBKDF2/SHA-256', cost: 1000, expectedSolveMs: 306, solveMs: 1200, surge: false },
    });
  });

  it('still verifies a version 1 token (issued before the effort was recorded), once, with effort null', async () => {
    const nonce = craftV1('shop.example.com');
    expect((await verify(nonce).expect(200)).body).toEqual({
      valid: true,
      issuedAt: expect.any(String),
      hostname: 'shop.example.com',
      effort: null,
    });
    expect((await verify(nonce).expect(200)).body).toEqual({ valid: false, reason: 'already_used' });
    const other = craftV1('shop.example.com');
    const changed = other.slice(0, 30) + (other[30] === 'A' ? 'B' : 'A') + other.slice(31);
    expect((await verify(changed).expect(200)).body).toEqual({ valid: false, reason: 'unknown' });
    expect((await verify(other).expect(200)).body).toMatchObject({ valid: true, effort: null });
  });

  it('lets exactly one of many concurrent verifications succeed', async () => {
    const { nonce } = await issue();
    const answers = await Promise.all(Array.from({ length: 20 }, () => verify(nonce)));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(answers.filter((r) => r.body.valid === true)).toHaveLength(1);
    expect(answers.filter((r) => r.body.reason === 'already_used')).toHaveLength(19);
  });

  describe('with an Idempotency-Key', () => {
    const verifyOnce = (nonce: string, idempotencyKey: string) =>
      t.http.post('/api/v1/nonces/verify').set('X-Api-Key', serverKey).set('Idempotency-Key', idempotencyKey).send({ nonce });

    it('answers a repeat of the same key and nonce with the first verdict, marked replayed: a retry cannot burn a good nonce', async () => {
      const { nonce } = await issue();
      const key = randomUUID();
      const first = await verifyOnce(nonce, key);
      expect(first.body).toMatchObject({ valid: true, effort: { algorithm: 'PBKDF2/SHA-256' } });
      expect(first.body.replayed).toBeUndefined();
      const again = await verifyOnce(nonce, key);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ ...first.body, replayed: true });
      // Without the key, or with another, the nonce is used.
      expect((await verify(nonce)).body).toEqual({ valid: false, reason: 'already_used' });
      expect((await verifyOnce(nonce, randomUUID())).body).toEqual({ valid: false, reason: 'already_used' });
      // An invalid verdict is replayed as such.
      const unknownKey = randomUUID();
      expect((await verifyOnce('made up', unknownKey)).body).toEqual({ valid: false, reason: 'unknown' });
      expect((await verifyOnce('made up', unknownKey)).body).toEqual({ valid: false, reason: 'unknown', replayed: true });
    });

    it('counts the verification once, however often it is replayed', async () => {
      const { nonce } = await issue();
      const key = randomUUID();
      const before = (await t.http.get('/api/v1/analytics/widget?groupBy=apiKey').set('Authorization', `Bearer ${account.owner.token}`))
        .body.data;
      const valid = (rows: Array<{ noncesValid: number }>) => rows.reduce((sum, r) => sum + r.noncesValid, 0);
      for (let i = 0; i < 3; i++) await verifyOnce(nonce, key).expect(200);
      const after = (await t.http.get('/api/v1/analytics/widget?groupBy=apiKey').set('Authorization', `Bearer ${account.owner.token}`)).body
        .data;
      expect(valid(after) - valid(before)).toBe(1);
    });

    it('gives concurrent repeats of one key the one verdict', async () => {
      const { nonce } = await issue();
      const key = randomUUID();
      const answers = await Promise.all(Array.from({ length: 10 }, () => verifyOnce(nonce, key)));
      expect(answers.map((r) => [r.status, r.body.valid])).toEqual(Array(10).fill([200, true]));
      expect(answers.filter((r) => r.body.replayed === true)).toHaveLength(9);
    });

    it('refuses the same key with another nonce (422 idempotency_key_reused), and a malformed key (400), using nothing', async () => {
      const [{ nonce: a }, { nonce: b }] = [await issue(), await issue()];
      const key = randomUUID();
      expect((await verifyOnce(a, key)).body.valid).toBe(true);
      expectError(await verifyOnce(b, key), 422, 'idempotency_key_reused');
      for (const bad of ['', 'x'.repeat(256), 'tab\there', 'ünïcode']) expectError(await verifyOnce(b, bad), 400, 'validation_failed');
      // Another account's same key is its own.
      const other = await createAccount(t);
      const otherKey = (await other.createKey({ scopes: ['verify'] })).key;
      const foreign = await t.http.post('/api/v1/nonces/verify').set('X-Api-Key', otherKey).set('Idempotency-Key', key).send({ nonce: b });
      expect(foreign.body).toEqual({ valid: false, reason: 'unknown' });
      expect((await verify(b)).body.valid).toBe(true); // b was never used above
    });
  });

  describe('test keys', () => {
    it('answer their fixed verdict whatever the nonce, and only with the verify scope', async () => {
      const verdicts: Record<string, unknown> = {};
      for (const testVerdict of ['valid', 'unknown', 'expired', 'already_used', 'unavailable']) {
        const created = await t.http
          .post('/api/v1/api-keys')
          .set('Authorization', `Bearer ${account.owner.token}`)
          .send({ name: `CI ${testVerdict}`, scopes: ['verify'], testVerdict });
        expect(created.status).toBe(201);
        expect(created.body.testVerdict).toBe(testVerdict);
        const res = await verify('anything at all', created.body.key);
        verdicts[testVerdict] =
          res.status === 200 ? res.body : { status: res.status, error: res.body.error, retryAfter: res.headers['retry-after'] };
      }
      expect(verdicts).toEqual({
        valid: {
          valid: true,
          issuedAt: expect.any(String),
          hostname: 'localhost',
          effort: expect.objectContaining({ algorithm: 'PBKDF2/SHA-256' }),
        },
        unknown: { valid: false, reason: 'unknown' },
        expired: { valid: false, reason: 'expired' },
        already_used: { valid: false, reason: 'already_used' },
        unavailable: { status: 503, error: 'service_unavailable', retryAfter: '1' },
      });
      const auth = { Authorization: `Bearer ${account.owner.token}` };
      for (const scopes of [['verify', 'public'], ['widget']]) {
        expectError(
          await t.http.post('/api/v1/api-keys').set(auth).send({ name: 'CI', scopes, testVerdict: 'valid' }),
          400,
          'validation_failed',
        );
      }
      expectError(
        await t.http
          .post('/api/v1/api-keys')
          .set(auth)
          .send({ name: 'CI', scopes: ['verify'], testVerdict: 'maybe' }),
        400,
        'validation_failed',
      );
    });

    it('are refused in production: none is made, and one made elsewhere does not authenticate', async () => {
      const prod = await startApp({ NODE_ENV: 'production', MFA_ENCRYPTION_KEY: randomBytes(32).toString('hex') });
      try {
        const owner = await createAccount(prod);
        const auth = { Authorization: `Bearer ${owner.owner.token}` };
        const refused = await prod.http
          .post('/api/v1/api-keys')
          .set(auth)
          .send({ name: 'CI', scopes: ['verify'], testVerdict: 'valid' });
        expectError(refused, 400, 'validation_failed');
        expect(await prod.prisma.apiKey.count({ where: { accountId: owner.id } })).toBe(0);
        const secret = generateApiKey();
        await prod.prisma.apiKey.create({
          data: {
            accountId: owner.id,
            name: 'copied',
            prefix: visiblePrefix(secret),
            hash: hashApiKey(secret),
            scopes: ['verify'],
            testVerdict: 'valid',
          },
        });
        const res = await prod.http.post('/api/v1/nonces/verify').set('X-Api-Key', secret).send({ nonce: 'anything' });
        expectError(res, 401, 'invalid_api_key');
        expect(res.body.message).toContain('Test keys are refused in production');
      } finally {
        await prod.close();
      }
    });
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

  it('still verifies a nonce stored as a row before nonces were signed tokens, once; and purges such rows an hour after expiry', async () => {
    const stored = async (expiresAt: Date) => {
      const nonce = newOneTimeToken('ghn');
      const key = await t.prisma.apiKey.findFirstOrThrow({ where: { accountId: account.id } });
      await t.prisma.nonce.create({ data: { accountId: account.id, apiKeyId: key.id, hash: hashOneTimeToken(nonce), expiresAt } });
      return nonce;
    };
    const live = await stored(new Date(Date.now() + 60_000));
    expect((await verify(live).expect(200)).body).toEqual({ valid: true, issuedAt: expect.any(String), hostname: null, effort: null });
    expect((await verify(live).expect(200)).body).toEqual({ valid: false, reason: 'already_used' });
    const old = await stored(new Date(Date.now() - NONCE_RETENTION_MS - 1000));
    expect((await verify(old).expect(200)).body).toEqual({ valid: false, reason: 'expired' });
    expect(await t.app.get(NoncesService).purge()).toBeGreaterThan(0);
    expect((await verify(old).expect(200)).body).toEqual({ valid: false, reason: 'unknown' });
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

describe('single use in the database and in Redis', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp()), 60_000);
  afterAll(() => t.close());

  const race = async (stores: SpentStore[], id: string) => {
    const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % stores.length].claim(id, Date.now() + 60_000)));
    return claims.filter(Boolean).length;
  };

  it('the database (PostgreSQL without Redis, and Redis’s fallback): one of many concurrent claims wins; an expired claim is taken over', async () => {
    const store = new DatabaseSpentStore(t.prisma);
    expect(await race([store], `test:${randomUUID()}`)).toBe(1);
    const id = `test:${randomUUID()}`;
    expect(await store.claim(id, Date.now() + 50)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await store.claim(id, Date.now() + 60_000)).toBe(true);
    expect(await store.claim(id, Date.now() + 60_000)).toBe(false);
    await store.close();
  });

  it('the database: a kept value is put once, read, replaced, and taken over once expired', async () => {
    const store = new DatabaseSpentStore(t.prisma);
    const id = `test:${randomUUID()}`;
    const puts = await Promise.all(Array.from({ length: 10 }, (_, i) => store.putIfAbsent(id, `v${i}`, Date.now() + 60_000)));
    expect(puts.filter((p) => p === undefined)).toHaveLength(1);
    const kept = await store.get(id);
    expect(puts.filter((p) => p !== undefined).every((p) => p === kept)).toBe(true);
    await store.replace(id, 'verdict', Date.now() + 60_000);
    expect(await store.get(id)).toBe('verdict');
    await store.replace(id, 'gone', Date.now() + 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store.get(id)).toBeUndefined();
    expect(await store.putIfAbsent(id, 'new', Date.now() + 60_000)).toBeUndefined();
    await store.close();
  });

  (process.env.E2E_REDIS_URL ? it : it.skip)('Redis: a kept value is put once by two instances, read and replaced', async () => {
    const prefix = `gatehouse-test:${randomUUID()}:`;
    const stores = [0, 1].map(
      () => new RedisSpentStore({ url: process.env.E2E_REDIS_URL!, cluster: false }, prefix, new DatabaseSpentStore(t.prisma)),
    );
    await Promise.all(stores.map((s) => s.ready()));
    const puts = await Promise.all(Array.from({ length: 10 }, (_, i) => stores[i % 2].putIfAbsent('idem', `v${i}`, Date.now() + 60_000)));
    expect(puts.filter((p) => p === undefined)).toHaveLength(1);
    await stores[0].replace('idem', 'verdict', Date.now() + 60_000);
    expect(await stores[1].get('idem')).toBe('verdict');
    await Promise.all(stores.map((s) => s.close()));
  });

  (process.env.E2E_REDIS_URL ? it : it.skip)('Redis: one of many concurrent claims from two instances wins', async () => {
    const prefix = `gatehouse-test:${randomUUID()}:`;
    const stores = [0, 1].map(
      () => new RedisSpentStore({ url: process.env.E2E_REDIS_URL!, cluster: false }, prefix, new DatabaseSpentStore(t.prisma)),
    );
    await Promise.all(stores.map((s) => s.ready()));
    expect(await race(stores, 'id')).toBe(1);
    await Promise.all(stores.map((s) => s.close()));
  });
});

describe('nonces across a restart', () => {
  let dataDir: string;
  beforeAll(() => (dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-nonces-'))));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('a nonce or a solution spent before a restart stays spent after it', async () => {
    // One deployment: the same secrets, data directory (embedded) or Redis prefix (PostgreSQL + Redis).
    const deployment = {
      DATA_DIR: dataDir,
      JWT_SECRET: randomBytes(32).toString('hex'),
      WIDGET_SECRETS: randomBytes(32).toString('hex'),
      REDIS_KEY_PREFIX: `gatehouse-test:${randomUUID()}:`,
    };
    let t = await startApp(deployment);
    const account = await createAccount(t, 'pro');
    const widgetKey = (await account.createKey({ scopes: ['widget'] })).key;
    const serverKey = (await account.createKey({ scopes: ['verify'] })).key;
    const altcha = await solvedAltcha(t, widgetKey);
    const { nonce } = (await t.http.post('/api/v1/widget/nonces').set('X-Api-Key', widgetKey).send({ altcha }).expect(201)).body as {
      nonce: string;
    };
    const unused = await issueNonce(t, widgetKey);
    expect((await t.http.post('/api/v1/nonces/verify').set('X-Api-Key', serverKey).send({ nonce }).expect(200)).body.valid).toBe(true);
    await t.close();

    t = await startApp(deployment);
    try {
      const verify = (n: string) => t.http.post('/api/v1/nonces/verify').set('X-Api-Key', serverKey).send({ nonce: n }).expect(200);
      expect((await verify(nonce)).body).toEqual({ valid: false, reason: 'already_used' });
      // A nonce issued before the restart still tells the work it was bought with.
      expect((await verify(unused.nonce)).body).toMatchObject({ valid: true, effort: { algorithm: 'PBKDF2/SHA-256', cost: 1000 } });
      expectError(await t.http.post('/api/v1/widget/nonces').set('X-Api-Key', widgetKey).send({ altcha }), 422, 'challenge_failed');
    } finally {
      await t.close();
    }
  }, 60_000);
});
