import { generateSync } from 'otplib';
import { createAccount, expectError, startApp, TestAccount, TestApp, TestUser } from '../utils/test-app';

/** The code an authenticator app shows for `secret` at `epoch` (seconds; default now). */
const codeFor = (secret: string, epoch = Math.floor(Date.now() / 1000)) => generateSync({ secret, epoch });

describe('second factor: TOTP and recovery codes', () => {
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t);
  });
  afterAll(() => t.close());

  const bearer = (user: TestUser) => ({ Authorization: `Bearer ${user.token}` });
  const login = (user: TestUser, headers: Record<string, string> = {}) =>
    t.http.post('/api/v1/auth/login').set(headers).send({ email: user.email, password: user.password });

  /** Enrols `user`: the secret, the code that confirmed it and the recovery codes. */
  async function enrol(user: TestUser): Promise<{ secret: string; confirmedWith: string; recoveryCodes: string[] }> {
    const started = await t.http.post('/api/v1/auth/mfa/totp').set(bearer(user)).expect(201);
    const { secret } = started.body as { secret: string };
    const confirmedWith = codeFor(secret);
    const confirmed = await t.http.post('/api/v1/auth/mfa/totp/confirm').set(bearer(user)).send({ code: confirmedWith }).expect(200);
    return { secret, confirmedWith, recoveryCodes: confirmed.body.recoveryCodes };
  }

  it('enrols with a secret and an otpauth URL, confirms with a code, and shows ten recovery codes once', async () => {
    const user = await account.addUser('DEVELOPER');
    const started = await t.http.post('/api/v1/auth/mfa/totp').set(bearer(user)).expect(201);
    expect(started.body).toEqual({ secret: expect.stringMatching(/^[A-Z2-7]{16,}$/), otpauthUrl: expect.any(String) });
    const url = new URL(started.body.otpauthUrl);
    expect(url.protocol).toBe('otpauth:');
    expect(url.searchParams.get('secret')).toBe(started.body.secret);
    expect(url.searchParams.get('issuer')).toBe('Gatehouse');
    expect(decodeURIComponent(url.pathname)).toContain(user.email);

    // The secret is sealed at rest, and never in an answer after enrolment.
    const row = await t.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.totpSecret).not.toBeNull();
    expect(row.totpSecret).not.toContain(started.body.secret);

    const wrong = await t.http
      .post('/api/v1/auth/mfa/totp/confirm')
      .set(bearer(user))
      .send({ code: codeFor(started.body.secret, 1_000_000) });
    expectError(wrong, 400, 'validation_failed');
    expect((await t.http.get('/api/v1/auth/mfa').set(bearer(user)).expect(200)).body).toEqual({
      totp: false,
      passkeys: 0,
      recoveryCodesLeft: 0,
      required: false,
    });

    const confirmed = await t.http
      .post('/api/v1/auth/mfa/totp/confirm')
      .set(bearer(user))
      .send({ code: codeFor(started.body.secret) })
      .expect(200);
    expect(confirmed.body.recoveryCodes).toHaveLength(10);
    expect(new Set(confirmed.body.recoveryCodes).size).toBe(10);
    const stored = await t.prisma.recoveryCode.findMany({ where: { userId: user.id } });
    expect(stored).toHaveLength(10);
    for (const code of confirmed.body.recoveryCodes as string[]) expect(JSON.stringify(stored)).not.toContain(code.replace('-', ''));
    expect((await t.http.get('/api/v1/auth/mfa').set(bearer(user)).expect(200)).body).toEqual({
      totp: true,
      passkeys: 0,
      recoveryCodesLeft: 10,
      required: false,
    });

    expectError(await t.http.post('/api/v1/auth/mfa/totp').set(bearer(user)), 409, 'conflict');
    const me = await t.http.get('/api/v1/auth/me').set(bearer(user)).expect(200);
    expect(JSON.stringify(me.body)).not.toContain(started.body.secret);
    const actions = await t.prisma.auditEvent.findMany({ where: { actorId: user.id }, select: { action: true, details: true } });
    expect(actions).toContainEqual({ action: 'auth.mfa_enabled', details: { method: 'totp' } });
  });

  it('asks a user with TOTP for the second step; a code completes it once, and the mfaToken works once', async () => {
    const user = await account.addUser('ANALYST');
    const { secret, confirmedWith } = await enrol(user);
    const first = await login(user).expect(200);
    expect(first.body).toEqual({ mfaRequired: true, mfaToken: expect.stringMatching(/^ghm_/), methods: ['totp', 'recovery_code'] });
    expect(first.body.token).toBeUndefined();

    // The code that confirmed the enrolment is spent: it is refused (no replay), even if its period has just ended.
    const replay = await t.http.post('/api/v1/auth/login/mfa').send({ mfaToken: first.body.mfaToken, code: confirmedWith });
    expectError(replay, 401, 'invalid_credentials');
    // The next period's code (within the ±30 s window) is accepted, once.
    const next = codeFor(secret, Math.floor(Date.now() / 1000) + 30);
    const done = await t.http.post('/api/v1/auth/login/mfa').send({ mfaToken: first.body.mfaToken, code: next }).expect(200);
    expect(done.body).toEqual({ token: expect.any(String), expiresIn: 86400 });
    await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${done.body.token}`).expect(200);

    expectError(
      await t.http.post('/api/v1/auth/login/mfa').send({ mfaToken: first.body.mfaToken, code: next }),
      401,
      'invalid_credentials',
    );
    const again = await login(user).expect(200);
    expectError(
      await t.http.post('/api/v1/auth/login/mfa').send({ mfaToken: again.body.mfaToken, code: next }),
      401,
      'invalid_credentials',
    );
  });

  it('takes a recovery code once, in any case and with or without its dash, and audits its use', async () => {
    const user = await account.addUser('DEVELOPER');
    const { recoveryCodes } = await enrol(user);
    const step = await login(user).expect(200);
    const typed = recoveryCodes[0].toUpperCase().replace('-', ' ');
    await t.http.post('/api/v1/auth/login/mfa').send({ mfaToken: step.body.mfaToken, code: typed }).expect(200);
    const used = await login(user).expect(200);
    expectError(
      await t.http.post('/api/v1/auth/login/mfa').send({ mfaToken: used.body.mfaToken, code: recoveryCodes[0] }),
      401,
      'invalid_credentials',
    );
    expect((await t.http.get('/api/v1/auth/mfa').set(bearer(user)).expect(200)).body.recoveryCodesLeft).toBe(9);
    const events = await t.prisma.auditEvent.findMany({ where: { accountId: account.id, action: 'auth.recovery_code_used' } });
    expect(events.map((e) => e.details)).toContainEqual({ left: 9 });
  });

  it('counts wrong codes toward the login lockout, and five end the step', async () => {
    const user = await account.addUser('DEVELOPER');
    const { secret } = await enrol(user);
    const step = await login(user).expect(200);
    for (let i = 0; i < 5; i++) {
      expectError(
        await t.http.post('/api/v1/auth/login/mfa').send({ mfaToken: step.body.mfaToken, code: '000000' }),
        401,
        'invalid_credentials',
      );
    }
    const late = await t.http
      .post('/api/v1/auth/login/mfa')
      .send({ mfaToken: step.body.mfaToken, code: codeFor(secret, Math.floor(Date.now() / 1000) + 30) });
    expectError(late, 401, 'invalid_credentials');
    expect(late.body.message).toContain('sign in again');
    // Five more wrong codes with a new step reach the lockout of ten failures: then even the right code waits.
    const second = await login(user).expect(200);
    for (let i = 0; i < 5; i++) await t.http.post('/api/v1/auth/login/mfa').send({ mfaToken: second.body.mfaToken, code: '999999' });
    const third = await login(user);
    expectError(third, 429, 'rate_limit_exceeded');
  });

  it('regenerates recovery codes and turns TOTP off only with the password', async () => {
    const user = await account.addUser('DEVELOPER');
    const { recoveryCodes } = await enrol(user);
    expectError(
      await t.http.post('/api/v1/auth/mfa/recovery-codes').set(bearer(user)).send({ password: 'not it' }),
      400,
      'validation_failed',
    );
    expectError(await t.http.post('/api/v1/auth/mfa/recovery-codes').set(bearer(user)).send({}), 400, 'validation_failed');
    const fresh = await t.http.post('/api/v1/auth/mfa/recovery-codes').set(bearer(user)).send({ password: user.password }).expect(201);
    expect(fresh.body.recoveryCodes).toHaveLength(10);
    const step = await login(user).expect(200);
    expectError(
      await t.http.post('/api/v1/auth/login/mfa').send({ mfaToken: step.body.mfaToken, code: recoveryCodes[1] }),
      401,
      'invalid_credentials',
    );

    expectError(await t.http.delete('/api/v1/auth/mfa/totp').set(bearer(user)).send({ password: 'not it' }), 400, 'validation_failed');
    expect((await t.http.get('/api/v1/auth/mfa').set(bearer(user)).expect(200)).body.totp).toBe(true);
    await t.http.delete('/api/v1/auth/mfa/totp').set(bearer(user)).send({ password: user.password }).expect(204);
    expect((await t.http.get('/api/v1/auth/mfa').set(bearer(user)).expect(200)).body).toEqual({
      totp: false,
      passkeys: 0,
      recoveryCodesLeft: 0,
      required: false,
    });
    expect((await login(user).expect(200)).body).toEqual({ token: expect.any(String), expiresIn: 86400 });
    const actions = (await t.prisma.auditEvent.findMany({ where: { actorId: user.id } })).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['auth.recovery_codes_regenerated', 'auth.mfa_disabled']));
  });

  it('with requireMfa on, a member without a second factor can only enrol; with one, everything again', async () => {
    const other = await createAccount(t);
    const member = await other.addUser('DEVELOPER');
    expectError(
      await t.http
        .patch('/api/v1/account')
        .set(bearer(await other.addUser('ADMIN')))
        .send({ requireMfa: true }),
      403,
      'insufficient_permissions',
    );
    expectError(await t.http.patch('/api/v1/account').set(bearer(other.owner)).send({ requireMfa: true }), 409, 'conflict');
    await enrol(other.owner);
    const on = await t.http.patch('/api/v1/account').set(bearer(other.owner)).send({ requireMfa: true }).expect(200);
    expect(on.body.requireMfa).toBe(true);
    const refused = await t.http.get('/api/v1/api-keys').set(bearer(member));
    expectError(refused, 403, 'mfa_required');
    await t.http.get('/api/v1/auth/me').set(bearer(member)).expect(200);
    expect((await t.http.get('/api/v1/auth/mfa').set(bearer(member)).expect(200)).body.required).toBe(true);
    await enrol(member);
    await t.http.get('/api/v1/api-keys').set(bearer(member)).expect(200);
    const members = await t.http.get('/api/v1/team/members').set(bearer(other.owner)).expect(200);
    const mfaOf = Object.fromEntries((members.body.data as Array<{ email: string; mfa: boolean }>).map((m) => [m.email, m.mfa]));
    expect(mfaOf[member.email]).toBe(true);
    expect(mfaOf[other.owner.email]).toBe(true);
    expect(Object.values(mfaOf).filter((has) => !has)).toHaveLength(1); // the ADMIN
    const events = await t.prisma.auditEvent.findMany({ where: { accountId: other.id, action: 'account.mfa_requirement_changed' } });
    expect(events.map((e) => e.details)).toEqual([{ requireMfa: { from: false, to: true } }]);
  });

  it('asks for the second factor after a password reset too: a reset link proves the e-mail, not the authenticator', async () => {
    const user = await account.addUser('DEVELOPER');
    const { secret } = await enrol(user);
    const issued = await t.http.post(`/api/v1/team/members/${user.id}/password-reset`).set(bearer(account.owner)).expect(201);
    const reset = await t.http
      .post('/api/v1/auth/password-reset/accept')
      .send({ token: issued.body.token, newPassword: 'a brand new long password' })
      .expect(200);
    expect(reset.body).toEqual({ mfaRequired: true, mfaToken: expect.any(String), methods: ['totp', 'recovery_code'] });
    const code = codeFor(secret, Math.floor(Date.now() / 1000) + 30);
    await t.http.post('/api/v1/auth/login/mfa').send({ mfaToken: reset.body.mfaToken, code }).expect(200);
  });

  it('refuses bad input with its code and changes nothing', async () => {
    const user = await account.addUser('DEVELOPER');
    expectError(await t.http.post('/api/v1/auth/mfa/totp/confirm').set(bearer(user)).send({ code: '123456' }), 409, 'conflict');
    await t.http.post('/api/v1/auth/mfa/totp').set(bearer(user)).expect(201);
    for (const code of ['12345', '1234567', 'abcdef', 123456, '']) {
      expectError(await t.http.post('/api/v1/auth/mfa/totp/confirm').set(bearer(user)).send({ code }), 400, 'validation_failed');
    }
    expectError(await t.http.post('/api/v1/auth/login/mfa').send({ mfaToken: 'ghm_nope', code: '123456' }), 401, 'invalid_credentials');
    expectError(await t.http.post('/api/v1/auth/login/mfa').send({ mfaToken: 'ghm_nope' }), 400, 'validation_failed');
    expectError(await t.http.delete('/api/v1/auth/mfa/totp').set(bearer(user)).send({ password: user.password }), 404, 'not_found');
    expect((await t.http.get('/api/v1/auth/mfa').set(bearer(user)).expect(200)).body.totp).toBe(false);
  });
});
