import { SoftAuthenticator } from '../utils/soft-authenticator';
import { createAccount, expectError, startApp, TestAccount, TestApp, TestUser } from '../utils/test-app';

describe('passkeys (WebAuthn)', () => {
  let t: TestApp;
  let account: TestAccount;
  let origin: string;

  beforeAll(async () => {
    t = await startApp({ PUBLIC_URL: 'https://gatehouse.example.com' });
    account = await createAccount(t);
    origin = 'https://gatehouse.example.com';
  });
  afterAll(() => t.close());

  const bearer = (user: TestUser) => ({ Authorization: `Bearer ${user.token}` });

  /** Registers a passkey of `user` made by `authenticator`. */
  async function register(user: TestUser, authenticator: SoftAuthenticator, name?: string) {
    const options = await t.http.post('/api/v1/auth/passkeys/registration-options').set(bearer(user)).expect(200);
    const res = await t.http
      .post('/api/v1/auth/passkeys')
      .set(bearer(user))
      .send({ ...(name === undefined ? {} : { name }), response: authenticator.create(options.body) });
    return res;
  }

  const passkeyStep = async (user: TestUser) => {
    const login = await t.http.post('/api/v1/auth/login').send({ email: user.email, password: user.password }).expect(200);
    return login.body as { mfaToken: string; methods: string[] };
  };

  it('registers several passkeys for a relying party of PUBLIC_URL, lists, renames and removes them (with the password)', async () => {
    const user = await account.addUser('DEVELOPER');
    const options = await t.http.post('/api/v1/auth/passkeys/registration-options').set(bearer(user)).expect(200);
    expect(options.body.rp).toEqual({ name: 'Gatehouse', id: 'gatehouse.example.com' });
    expect(options.body.user.name).toBe(user.email);
    expect(options.body.authenticatorSelection.residentKey).toBe('required');

    const laptop = await t.http
      .post('/api/v1/auth/passkeys')
      .set(bearer(user))
      .send({ name: 'Laptop', response: new SoftAuthenticator(origin).create(options.body) })
      .expect(201);
    expect(laptop.body).toEqual({
      id: expect.any(String),
      name: 'Laptop',
      deviceType: 'singleDevice',
      backedUp: false,
      createdAt: expect.any(String),
      lastUsedAt: null,
    });
    const phone = (await register(user, new SoftAuthenticator(origin))).body;
    expect(phone.name).toBe('Passkey 2');

    const second = await t.http.post('/api/v1/auth/passkeys/registration-options').set(bearer(user)).expect(200);
    expect(second.body.excludeCredentials).toHaveLength(2);
    const list = await t.http.get('/api/v1/auth/passkeys').set(bearer(user)).expect(200);
    expect(list.body.data.map((p: { name: string }) => p.name)).toEqual(['Laptop', 'Passkey 2']);
    expect(JSON.stringify(list.body)).not.toMatch(/publicKey|credentialId/);

    await t.http.patch(`/api/v1/auth/passkeys/${phone.id}`).set(bearer(user)).send({ name: 'Phone' }).expect(200);
    expectError(
      await t.http.delete(`/api/v1/auth/passkeys/${phone.id}`).set(bearer(user)).send({ password: 'wrong' }),
      400,
      'validation_failed',
    );
    await t.http.delete(`/api/v1/auth/passkeys/${phone.id}`).set(bearer(user)).send({ password: user.password }).expect(204);
    expect((await t.http.get('/api/v1/auth/passkeys').set(bearer(user)).expect(200)).body.data).toHaveLength(1);
    const actions = (await t.prisma.auditEvent.findMany({ where: { actorId: user.id } })).map((e) => e.action);
    expect(actions.filter((a) => a === 'auth.passkey_added')).toHaveLength(2);
    expect(actions).toContain('auth.passkey_removed');

    // Someone else's passkey is not there for them.
    const other = await account.addUser('DEVELOPER');
    expectError(await t.http.patch(`/api/v1/auth/passkeys/${laptop.body.id}`).set(bearer(other)).send({ name: 'mine' }), 404, 'not_found');
    expectError(
      await t.http.delete(`/api/v1/auth/passkeys/${laptop.body.id}`).set(bearer(other)).send({ password: other.password }),
      404,
      'not_found',
    );
  });

  it('completes a sign-in as the second factor, and alone (passwordless)', async () => {
    const user = await account.addUser('ANALYST');
    const authenticator = new SoftAuthenticator(origin);
    await register(user, authenticator).then((res) => expect(res.status).toBe(201));

    const step = await passkeyStep(user);
    expect(step.methods).toEqual(['passkey']);
    const options = await t.http.post('/api/v1/auth/passkeys/authentication-options').send({ mfaToken: step.mfaToken }).expect(200);
    expect(options.body.allowCredentials).toEqual([expect.objectContaining({ id: authenticator.credentialId.toString('base64url') })]);
    const done = await t.http
      .post('/api/v1/auth/login/passkey')
      .send({ mfaToken: step.mfaToken, response: authenticator.get(options.body) })
      .expect(200);
    await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${done.body.token}`).expect(200);

    const alone = await t.http.post('/api/v1/auth/passkeys/authentication-options').send({}).expect(200);
    expect(alone.body.userVerification).toBe('required');
    expect(alone.body.allowCredentials ?? []).toEqual([]);
    const signedIn = await t.http
      .post('/api/v1/auth/login/passkey')
      .send({ response: authenticator.get(alone.body) })
      .expect(200);
    const me = await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${signedIn.body.token}`).expect(200);
    expect(me.body.email).toBe(user.email);
    for (const answer of [done, signedIn])
      expect(String(answer.headers['set-cookie'])).toMatch(/^gatehouse_session=ghs_[\w-]{43}; .*HttpOnly; SameSite=Strict/);
    const [passkey] = (await t.http.get('/api/v1/auth/passkeys').set(bearer(user)).expect(200)).body.data;
    expect(passkey.lastUsedAt).not.toBeNull();
    const logins = await t.prisma.auditEvent.findMany({ where: { actorId: user.id, action: 'auth.login' } });
    expect(logins.map((e) => e.details)).toEqual([{ method: 'passkey' }, { method: 'passkey' }]);
  });

  it('refuses another origin, another user’s passkey, a replayed response, no user verification alone, and a reused registration', async () => {
    const user = await account.addUser('DEVELOPER');
    const authenticator = new SoftAuthenticator(origin);
    await register(user, authenticator);
    const intruder = await account.addUser('DEVELOPER');
    const intruderKey = new SoftAuthenticator(origin);
    await register(intruder, intruderKey);

    // A phishing page's origin.
    const step = await passkeyStep(user);
    let options = await t.http.post('/api/v1/auth/passkeys/authentication-options').send({ mfaToken: step.mfaToken }).expect(200);
    expectError(
      await t.http
        .post('/api/v1/auth/login/passkey')
        .send({ mfaToken: step.mfaToken, response: authenticator.get(options.body, { origin: 'https://gatehouse.example.evil' }) }),
      401,
      'invalid_credentials',
    );
    // Another user's passkey for this user's step.
    options = await t.http.post('/api/v1/auth/passkeys/authentication-options').send({ mfaToken: step.mfaToken }).expect(200);
    expectError(
      await t.http.post('/api/v1/auth/login/passkey').send({ mfaToken: step.mfaToken, response: intruderKey.get(options.body) }),
      401,
      'invalid_credentials',
    );
    // A right answer once; replayed, it fails (its challenge is spent).
    options = await t.http.post('/api/v1/auth/passkeys/authentication-options').send({ mfaToken: step.mfaToken }).expect(200);
    const answer = authenticator.get(options.body);
    await t.http.post('/api/v1/auth/login/passkey').send({ mfaToken: step.mfaToken, response: answer }).expect(200);
    expectError(await t.http.post('/api/v1/auth/login/passkey').send({ response: answer }), 401, 'invalid_credentials');
    const failures = await t.prisma.auditEvent.count({ where: { accountId: account.id, action: 'auth.login_failed', targetId: user.id } });
    expect(failures).toBe(2);

    // Alone, a passkey must verify its user.
    const alone = await t.http.post('/api/v1/auth/passkeys/authentication-options').send({}).expect(200);
    expectError(
      await t.http.post('/api/v1/auth/login/passkey').send({ response: authenticator.get(alone.body, { verified: false }) }),
      401,
      'invalid_credentials',
    );

    // A registration response used twice, or for options never asked.
    const regOptions = await t.http.post('/api/v1/auth/passkeys/registration-options').set(bearer(user)).expect(200);
    const fresh = new SoftAuthenticator(origin).create(regOptions.body);
    await t.http.post('/api/v1/auth/passkeys').set(bearer(user)).send({ response: fresh }).expect(201);
    expectError(await t.http.post('/api/v1/auth/passkeys').set(bearer(user)).send({ response: fresh }), 400, 'validation_failed');
    const foreign = new SoftAuthenticator('https://elsewhere.example').create(
      (await t.http.post('/api/v1/auth/passkeys/registration-options').set(bearer(user)).expect(200)).body,
    );
    expectError(await t.http.post('/api/v1/auth/passkeys').set(bearer(user)).send({ response: foreign }), 400, 'validation_failed');
    expectError(await t.http.post('/api/v1/auth/passkeys').set(bearer(user)).send({ response: 'not an object' }), 400, 'validation_failed');
    expect((await t.http.get('/api/v1/auth/passkeys').set(bearer(user)).expect(200)).body.data).toHaveLength(2);
  });
});
