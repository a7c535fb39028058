import { randomBytes, randomUUID } from 'node:crypto';
import { argon2id, hash as argon2Hash } from 'argon2';
import { sign } from 'jsonwebtoken';
import { CLOCK_SKEW_SECONDS } from '../../src/auth/strategies/jwt.strategy';
import { CacheInvalidation } from '../../src/cache/invalidation.service';
import { listeningPort, rawGet } from '../utils/raw-http';
import { createAccount, expectError, expectRateLimitHeaders, onRealServices, startApp, TestAccount, TestApp } from '../utils/test-app';

const ROUTE = '/api/v1/api-keys';
/** A hash's type and parameters (argon2 writes them into the hash), sorted. */
const parametersOf = (hash: string | null) => {
  const [, type, , params] = (hash ?? '').split('$');
  return [type, ...(params ?? '').split(',').sort()];
};

describe('POST /api/v1/auth/login', () => {
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t);
  });
  afterAll(() => t.close());

  it('answers {token, expiresIn: 86400} and the token opens JWT routes', async () => {
    const res = await t.http.post('/api/v1/auth/login').send({ email: account.owner.email, password: account.owner.password }).expect(200);
    expect(res.body).toEqual({ token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/), expiresIn: 86400 });
    expectRateLimitHeaders(res);
    await t.http.get(ROUTE).set('Authorization', `Bearer ${res.body.token}`).expect(200);
  });

  it('treats the email case-insensitively', async () => {
    await t.http
      .post('/api/v1/auth/login')
      .send({ email: account.owner.email.toUpperCase(), password: account.owner.password })
      .expect(200);
  });

  it('gives unknown email and wrong password the same 401 invalid_credentials', async () => {
    const wrong = await t.http.post('/api/v1/auth/login').send({ email: account.owner.email, password: 'not the password' });
    const unknown = await t.http
      .post('/api/v1/auth/login')
      .send({ email: `nobody-${Date.now()}@example.com`, password: 'not the password' });
    for (const res of [wrong, unknown]) {
      expectError(res, 401, 'invalid_credentials');
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expectRateLimitHeaders(res);
    }
    expect({ ...wrong.body, requestId: 'x' }).toEqual({ ...unknown.body, requestId: 'x' });
  });

  it('locks an email out after 10 failures from one client, even for the right password, and leaves other emails alone', async () => {
    const victim = await account.addUser('DEVELOPER');
    for (let i = 0; i < 10; i++) {
      expectError(
        await t.http.post('/api/v1/auth/login').send({ email: victim.email, password: `guess ${i}` }),
        401,
        'invalid_credentials',
      );
    }
    const locked = await t.http.post('/api/v1/auth/login').send({ email: victim.email, password: victim.password });
    expectError(locked, 429, 'rate_limit_exceeded');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect(locked.body.token).toBeUndefined();
    const other = await account.addUser('DEVELOPER');
    await t.http.post('/api/v1/auth/login').send({ email: other.email, password: other.password }).expect(200);
  });

  it('lets in a password hashed with older argon2 parameters and stores it hashed with the current ones, once', async () => {
    const user = await account.addUser('DEVELOPER');
    const old = await argon2Hash(user.password, { type: argon2id, memoryCost: 65_536, timeCost: 3, parallelism: 4 });
    await t.prisma.user.update({ where: { id: user.id }, data: { passwordHash: old } });
    const stored = async () => (await t.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).passwordHash;
    const login = (password: string) => t.http.post('/api/v1/auth/login').send({ email: user.email, password });

    expectError(await login('not the password'), 401, 'invalid_credentials');
    expect(await stored()).toBe(old);
    await login(user.password).expect(200);
    const renewed = await stored();
    expect(parametersOf(renewed)).toEqual(['argon2id', 'm=7168', 'p=1', 't=5']); // src/credentials/passwords.ts
    await login(user.password).expect(200);
    expect(await stored()).toBe(renewed);
    // The same password, so no session ends: a token issued before the new hash still opens JWT routes.
    await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${user.token}`).expect(200);
  });
});

describe('login lockout per email and client', () => {
  let t: TestApp;
  let account: TestAccount;
  // Behind a trusted proxy, X-Forwarded-For names the client: ten addresses from one test.
  const from = (address: string) => t.http.post('/api/v1/auth/login').set('X-Forwarded-For', address);

  beforeAll(async () => {
    t = await startApp({ TRUST_PROXY: '127.0.0.1,::1,::ffff:127.0.0.1' });
    account = await createAccount(t);
  });
  afterAll(() => t.close());

  it('lets the owner in after ten failures from ten addresses (the lockout an attacker could renew)', async () => {
    const owner = await account.addUser('OWNER');
    for (let i = 1; i <= 10; i++) {
      expectError(await from(`198.51.100.${i}`).send({ email: owner.email, password: `guess ${i}` }), 401, 'invalid_credentials');
    }
    const res = await from('203.0.113.7').send({ email: owner.email, password: owner.password });
    expect({ status: res.status, token: typeof res.body.token }).toEqual({ status: 200, token: 'string' });
  });

  it('locks the address that failed ten times, right password included, and no other', async () => {
    const owner = await account.addUser('OWNER');
    for (let i = 0; i < 10; i++) {
      expectError(await from('198.51.100.200').send({ email: owner.email, password: `guess ${i}` }), 401, 'invalid_credentials');
    }
    expectError(await from('198.51.100.200').send({ email: owner.email, password: owner.password }), 429, 'rate_limit_exceeded');
    await from('203.0.113.8').send({ email: owner.email, password: owner.password }).expect(200);
  });
});

describe('login per client IP', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('allows 30 attempts a minute, then answers 429 with Retry-After', async () => {
    for (let i = 1; i <= 30; i++) {
      const res = await t.http.post('/api/v1/auth/login').send({ email: `flood-${i}@example.com`, password: 'x' });
      expectError(res, 401, 'invalid_credentials');
      expect(res.headers['x-ratelimit-limit']).toBe('30');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(30 - i));
    }
    const res = await t.http.post('/api/v1/auth/login').send({ email: 'flood-31@example.com', password: 'x' });
    expectError(res, 429, 'rate_limit_exceeded');
    expectRateLimitHeaders(res);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('bearer tokens', () => {
  let t: TestApp;
  let account: TestAccount;
  const claims = () => ({ sv: 0, jti: randomUUID() });
  const options = (over: object = {}) => ({
    subject: account.owner.id,
    issuer: 'gatehouse',
    audience: 'gatehouse-dashboard',
    expiresIn: 300,
    ...over,
  });
  const secret = () => t.config.jwt.secret!;
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const get = (token: string) => t.http.get(ROUTE).set('Authorization', `Bearer ${token}`);
  const expectInvalid = async (token: string) => {
    const res = await get(token);
    expectError(res, 401, 'invalid_token');
    expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    expectRateLimitHeaders(res);
  };

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t);
  });
  afterAll(() => t.close());

  it('accepts a well-formed HS256 token', async () => {
    await get(sign(claims(), secret(), options())).expect(200);
  });

  it('answers 401 token_expired with the RFC 6750 challenge for an expired token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const res = await get(
      sign({ ...claims(), iat: now - 600, exp: now - 60 }, secret(), {
        subject: account.owner.id,
        issuer: 'gatehouse',
        audience: 'gatehouse-dashboard',
      }),
    );
    expectError(res, 401, 'token_expired');
    expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="token_expired"');
    expectRateLimitHeaders(res);
  });

  it('refuses a token without a jti, or with one that is not a UUID (sign-out needs it)', async () => {
    await expectInvalid(sign({ sv: 0 }, secret(), options()));
    await expectInvalid(sign({ sv: 0, jti: 'not-a-uuid' }, secret(), options()));
  });

  it('refuses alg "none"', async () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = { ...claims(), sub: account.owner.id, iss: 'gatehouse', aud: 'gatehouse-dashboard', iat: now, exp: now + 300 };
    await expectInvalid(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.`);
  });

  it('refuses another algorithm, even with the right secret', async () => {
    await expectInvalid(sign(claims(), secret(), { ...options(), algorithm: 'HS512' }));
  });

  it('refuses a bad signature', async () => {
    await expectInvalid(sign(claims(), randomBytes(32), options()));
  });

  it('refuses a token without exp', async () => {
    const { expiresIn: _, ...noExp } = options();
    await expectInvalid(sign(claims(), secret(), noExp));
  });

  it('refuses a wrong audience or issuer', async () => {
    await expectInvalid(sign(claims(), secret(), options({ audience: 'someone-else' })));
    await expectInvalid(sign(claims(), secret(), options({ issuer: 'someone-else' })));
  });

  it('refuses tampered claims', async () => {
    const other = await createAccount(t);
    const [header, payload, signature] = sign(claims(), secret(), options()).split('.');
    const claimsIn = JSON.parse(Buffer.from(payload, 'base64url').toString());
    await expectInvalid(`${header}.${b64({ ...claimsIn, sub: other.owner.id })}.${signature}`);
  });

  it('refuses a malformed header value', async () => {
    await expectInvalid('garbage');
    const basic = await t.http.get(ROUTE).set('Authorization', 'Basic dXNlcjpwYXNz');
    expectError(basic, 401, 'invalid_token');
  });

  it('refuses a validly signed token whose sub is not a user id', async () => {
    for (const subject of ['not-a-uuid', `${account.owner.id}x`, "' OR 1=1 --", 'a\u0000b']) {
      await expectInvalid(sign(claims(), secret(), options({ subject })));
    }
  });

  it('refuses a token without iat', async () => {
    await expectInvalid(sign(claims(), secret(), options({ noTimestamp: true })));
  });

  it(`refuses an iat more than ${CLOCK_SKEW_SECONDS} s in the future, and takes one within that skew`, async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectInvalid(sign({ ...claims(), iat: now + CLOCK_SKEW_SECONDS + 120 }, secret(), options()));
    await get(sign({ ...claims(), iat: now + 10 }, secret(), options())).expect(200);
  });

  it('refuses a token that lives longer than JWT_EXPIRES_IN, and takes one that lives exactly that', async () => {
    const lifetime = t.config.jwt.expiresIn;
    await expectInvalid(sign(claims(), secret(), options({ expiresIn: lifetime + 60 })));
    await get(sign(claims(), secret(), options({ expiresIn: lifetime }))).expect(200);
  });

  it('refuses a token with a crit header', async () => {
    await expectInvalid(sign(claims(), secret(), options({ header: { alg: 'HS256', typ: 'JWT', crit: ['exp'] } })));
  });

  it('refuses a token whose sv is not an integer', async () => {
    await expectInvalid(sign({ sv: '0' }, secret(), options()));
  });

  it('refuses tokens issued before the user’s token version changed, and tokens of removed users', async () => {
    const user = await account.addUser('DEVELOPER');
    await get(user.token).expect(200);
    await t.prisma.user.update({ where: { id: user.id }, data: { tokenVersion: { increment: 1 } } });
    t.app.get(CacheInvalidation).invalidate('user', user.id);
    await expectInvalid(user.token);

    const leaver = await account.addUser('ADMIN');
    await t.prisma.user.delete({ where: { id: leaver.id } });
    t.app.get(CacheInvalidation).invalidate('user', leaver.id);
    await expectInvalid(leaver.token);
  });
});

// Its own app: refused tokens count against the client's allowance for credential-less calls.
describe('the Authorization header', () => {
  let t: TestApp;
  let account: TestAccount;
  const claims = () => ({ sv: 0, jti: randomUUID() });
  const options = () => ({ subject: account.owner.id, issuer: 'gatehouse', audience: 'gatehouse-dashboard', expiresIn: 300 });
  const secret = () => t.config.jwt.secret!;

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t);
  });
  afterAll(() => t.close());

  it('takes the Bearer scheme in any case, as RFC 7235 says, and more than one space after it', async () => {
    const token = sign(claims(), secret(), options());
    for (const value of [`bearer ${token}`, `BEARER ${token}`, `Bearer   ${token}`]) {
      expect({ value, status: (await t.http.get(ROUTE).set('Authorization', value)).status }).toEqual({ value, status: 200 });
    }
  });

  it('refuses anything around the one token: a second word, a second scheme, a tab', async () => {
    const token = sign(claims(), secret(), options());
    for (const value of [
      `Bearer ${token} junk`,
      `Bearer ${token} ${token}`,
      `Bearer ${token}, Basic dXNlcjpwYXNz`,
      `Bearer\t${token}`,
      `Bearer ${token}x y`,
    ]) {
      const res = await t.http.get(ROUTE).set('Authorization', value);
      expect({ value, status: res.status, error: res.body.error }).toEqual({ value, status: 401, error: 'invalid_token' });
      expectRateLimitHeaders(res);
    }
  });

  it('refuses two Authorization headers, whichever comes first', async () => {
    const token = sign(claims(), secret(), options());
    const port = await listeningPort(t);
    for (const values of [
      [`Bearer ${token}`, 'Bearer junk'],
      ['Bearer junk', `Bearer ${token}`],
      [`Bearer ${token}`, `Bearer ${token}`],
    ]) {
      const res = await rawGet(port, ROUTE, { Authorization: values });
      expect({ values, status: res.status, error: (JSON.parse(res.body) as { error: string }).error }).toEqual({
        values,
        status: 401,
        error: 'invalid_token',
      });
      expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    }
  });
});

// Breaks its own in-memory database, so only on the embedded default.
(onRealServices ? describe.skip : describe)('when the database fails during authentication', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('answers 500 internal_error, never a 401 that blames the credential', async () => {
    const account = await createAccount(t);
    const { key } = await account.createKey();
    const user = await account.addUser('DEVELOPER');
    await t.prisma.$executeRawUnsafe('ALTER TABLE "ApiKey" RENAME TO "ApiKeyGone"');
    await t.prisma.$executeRawUnsafe('ALTER TABLE "User" RENAME TO "UserGone"');
    for (const res of [
      await t.http.get('/api/v1/public/ping').set('X-Api-Key', key),
      await t.http.get(ROUTE).set('Authorization', `Bearer ${user.token}`),
    ]) {
      expectError(res, 500, 'internal_error');
      expect(JSON.stringify(res.body)).not.toMatch(/ApiKey|UserGone|SELECT|relation|\bat /);
      expect(res.headers['www-authenticate']).toBeUndefined();
      expectRateLimitHeaders(res);
    }
  });
});

describe('POST /api/v1/auth/logout', () => {
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t);
  }, 60_000);
  afterAll(() => t.close());

  const me = (token: string) => t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${token}`);
  const login = async (email: string, password: string): Promise<string> =>
    (await t.http.post('/api/v1/auth/login').send({ email, password }).expect(200)).body.token;

  it('signs that token out at once, and only that one: another session of the user goes on', async () => {
    const user = await account.addUser('DEVELOPER');
    const [first, second] = [await login(user.email, user.password), await login(user.email, user.password)];
    await me(first).expect(200);
    const res = await t.http.post('/api/v1/auth/logout').set('Authorization', `Bearer ${first}`);
    expect(res.status).toBe(204);
    expectRateLimitHeaders(res);
    expectError(await me(first), 401, 'invalid_token');
    expectError(await t.http.post('/api/v1/auth/logout').set('Authorization', `Bearer ${first}`), 401, 'invalid_token');
    await me(second).expect(200);
  });

  it('keeps the revocation until the token would have expired, then purges it', async () => {
    const user = await account.addUser('ANALYST');
    await t.http.post('/api/v1/auth/logout').set('Authorization', `Bearer ${user.token}`).expect(204);
    const row = await t.prisma.revokedToken.findFirstOrThrow({ where: { userId: user.id } });
    const exp = JSON.parse(Buffer.from(user.token.split('.')[1], 'base64url').toString()).exp as number;
    expect(row.expiresAt.getTime()).toBe(exp * 1000);
    const { AuthService } = await import('../../src/auth/auth.service');
    const auth = t.app.get(AuthService);
    await auth.purgeRevokedTokens(new Date(exp * 1000 - 1000));
    expect(await t.prisma.revokedToken.count({ where: { userId: user.id } })).toBe(1);
    await auth.purgeRevokedTokens(new Date(exp * 1000));
    expect(await t.prisma.revokedToken.count({ where: { userId: user.id } })).toBe(0);
  });

  it('needs a valid token: none is 401 missing_credentials', async () => {
    expectError(await t.http.post('/api/v1/auth/logout'), 401, 'missing_credentials');
  });
});
