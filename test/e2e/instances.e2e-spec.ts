import { randomBytes, randomUUID } from 'node:crypto';
import { UsageHit, UsageRecorder } from '../../src/usage/usage.recorder';
import { eventually } from '../utils/eventually';
import { createAccount, onRealServices, startApp, TestAccount, TestApp } from '../utils/test-app';
import { issueNonce, solvedAltcha } from '../utils/widget';

// Two instances need one database: only on PostgreSQL + Redis. The other instance learns of a
// change through PostgreSQL and Redis, hence `eventually`.
(onRealServices ? describe : describe.skip)('two instances on one PostgreSQL and one Redis', () => {
  let a: TestApp;
  let b: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    // Instances of one deployment share the Redis prefix, the JWT secret and the widget secrets. Usage is written by
    // hand in the test that counts it, so no timed write can retry a failed one.
    const shared = {
      REDIS_KEY_PREFIX: `gatehouse-test:${randomUUID()}:`,
      JWT_SECRET: randomBytes(32).toString('hex'),
      WIDGET_SECRETS: randomBytes(32).toString('hex'),
      USAGE_FLUSH_INTERVAL_MS: '60000',
    };
    a = await startApp(shared);
    b = await startApp(shared);
    account = await createAccount(a);
  }, 60_000);
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  const ping = (t: TestApp, key: string) => t.http.get('/api/v1/public/ping').set('X-Api-Key', key);

  it('refuses a key on the other instance right after it is revoked there', async () => {
    const { id, key } = await account.createKey();
    await ping(b, key).expect(200); // b caches the key
    await a.http.delete(`/api/v1/api-keys/${id}`).set('Authorization', `Bearer ${account.owner.token}`).expect(200);
    await eventually(async () => expect((await ping(b, key)).status).toBe(401));
  });

  it('refuses older tokens on the other instance after a password change', async () => {
    const user = await account.addUser('DEVELOPER');
    await b.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${user.token}`).expect(200);
    await a.http
      .put('/api/v1/auth/password')
      .set('Authorization', `Bearer ${user.token}`)
      .send({ currentPassword: user.password, newPassword: 'a brand new passphrase' })
      .expect(200);
    await eventually(async () =>
      expect((await b.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${user.token}`)).status).toBe(401),
    );
  });

  it('lets exactly one of many concurrent verifications of a nonce succeed, across instances', async () => {
    const { key } = await account.createKey();
    const issued = await issueNonce(a, key);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? a : b).http.post('/api/v1/nonces/verify').set('X-Api-Key', key).send({ nonce: issued.nonce }),
      ),
    );
    expect(answers.filter((r) => r.status === 200 && r.body.valid === true)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 200 && r.body.reason === 'already_used')).toHaveLength(19);
  });

  it('exchanges a widget solution for one nonce across instances: a replay on the other is 422 and issues nothing', async () => {
    const { key } = await account.createKey({ scopes: ['widget'] });
    const altcha = await solvedAltcha(a, key);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).http.post('/api/v1/widget/nonces').set('X-Api-Key', key).send({ altcha })),
    );
    const issued = answers.filter((r) => r.status === 201);
    expect(issued).toHaveLength(1);
    expect(answers.filter((r) => r.status === 422 && r.body.error === 'challenge_failed')).toHaveLength(9);
    // Later too, on either instance: a solution is spent for good.
    for (const t of [a, b]) expect((await t.http.post('/api/v1/widget/nonces').set('X-Api-Key', key).send({ altcha })).status).toBe(422);
    // The nonce carries its effort: the other instance tells it, from the token alone.
    const verifier = (await account.createKey({ scopes: ['verify'] })).key;
    const verdict = await b.http.post('/api/v1/nonces/verify').set('X-Api-Key', verifier).send({ nonce: issued[0].body.nonce }).expect(200);
    expect(verdict.body).toMatchObject({ valid: true, effort: { algorithm: 'PBKDF2/SHA-256', cost: 1000, surge: false } });
  });

  it('refuses a token signed out on one instance on the other within a second', async () => {
    const user = await account.addUser('DEVELOPER');
    await b.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${user.token}`).expect(200); // cached there
    await a.http.post('/api/v1/auth/logout').set('Authorization', `Bearer ${user.token}`).expect(204);
    const signedOutAt = Date.now();
    await eventually(async () =>
      expect((await b.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${user.token}`)).status).toBe(401),
    );
    expect(Date.now() - signedOutAt).toBeLessThan(1000);
  });

  it('refuses the token of a session ended on one instance on the other within a second', async () => {
    const user = await account.addUser('DEVELOPER');
    const login = async (t: TestApp, agent: string) =>
      (await t.http.post('/api/v1/auth/login').set('User-Agent', agent).send({ email: user.email, password: user.password }).expect(200))
        .body.token as string;
    const laptop = await login(a, 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0');
    const phone = await login(
      b,
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 Version/17.1 Mobile/15E148 Safari/604.1',
    );
    await b.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${phone}`).expect(200); // cached there
    const listed = await a.http.get('/api/v1/auth/sessions').set('Authorization', `Bearer ${laptop}`).expect(200);
    const phoneSession = listed.body.data.find((s: { current: boolean }) => !s.current);
    expect(phoneSession.device).toBe('Safari on iOS');
    await a.http.delete(`/api/v1/auth/sessions/${phoneSession.id}`).set('Authorization', `Bearer ${laptop}`).expect(204);
    const endedAt = Date.now();
    await eventually(async () => expect((await b.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${phone}`)).status).toBe(401));
    expect(Date.now() - endedAt).toBeLessThan(1000);
    await b.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${laptop}`).expect(200);
  });

  it('refuses every key, token and invitation of an account deleted on one instance on the other within a second', async () => {
    const doomed = await createAccount(a);
    const { key } = await doomed.createKey();
    const auth = { Authorization: `Bearer ${doomed.owner.token}` };
    const inv = await a.http
      .post('/api/v1/team/invitations')
      .set(auth)
      .send({ email: `late-${randomUUID()}@example.com`, role: 'ANALYST' });
    await b.http.get('/api/v1/public/ping').set('X-Api-Key', key).expect(200); // cached there
    await b.http.get('/api/v1/auth/me').set(auth).expect(200);
    const { name } = await a.prisma.account.findUniqueOrThrow({ where: { id: doomed.id } });
    await a.http.delete('/api/v1/account').set(auth).send({ confirm: name }).expect(204);
    const deletedAt = Date.now();
    await eventually(async () => {
      expect((await b.http.get('/api/v1/public/ping').set('X-Api-Key', key)).status).toBe(401);
      expect((await b.http.get('/api/v1/auth/me').set(auth)).status).toBe(401);
    });
    expect(Date.now() - deletedAt).toBeLessThan(1000);
    expect(
      (await b.http.post('/api/v1/auth/invitations/accept').send({ token: inv.body.token, password: 'a long enough passphrase' })).status,
    ).toBe(401);
  });

  it('refuses an invitation revoked on one instance at once on the other', async () => {
    const auth = { Authorization: `Bearer ${account.owner.token}` };
    const inv = await a.http
      .post('/api/v1/team/invitations')
      .set(auth)
      .send({ email: `revoked-${randomUUID()}@example.com`, role: 'ANALYST' });
    await a.http.delete(`/api/v1/team/invitations/${inv.body.id}`).set(auth).expect(204);
    const res = await b.http.post('/api/v1/auth/invitations/accept').send({ token: inv.body.token, password: 'a long enough passphrase' });
    expect(res.status).toBe(401);
  });

  it('applies a plan change on the other instance, and shares one counter', async () => {
    const other = await createAccount(a, 'free');
    const { key } = await other.createKey();
    expect((await ping(b, key)).headers['x-ratelimit-limit']).toBe('60');
    expect((await ping(a, key)).headers['x-ratelimit-remaining']).toBe('58');
    await a.http.put('/api/v1/account/plan').set('Authorization', `Bearer ${other.owner.token}`).send({ plan: 'pro' }).expect(200);
    await eventually(async () => expect((await ping(b, key)).headers['x-ratelimit-limit']).toBe('600'));
  });

  it('loses no usage count when both instances write the same buckets at once', async () => {
    const [ra, rb] = [a.app.get(UsageRecorder), b.app.get(UsageRecorder)];
    const keyIds = Array.from({ length: 500 }, () => randomUUID());
    const hit = (keyId: string): UsageHit => ({
      principal: {
        kind: 'apiKey',
        keyId,
        accountId: account.id,
        scopes: ['public'],
        allowedOrigins: [],
        challengeWaitMs: null,
        testVerdict: null,
      },
      endpoint: 'GET /api/v1/public/ping',
      status: 200,
      at: Date.now(),
    });
    const written = async () =>
      (await a.prisma.usageCounter.aggregate({ where: { subjectId: { in: keyIds } }, _sum: { count: true } }))._sum.count;
    for (let round = 1; round <= 5; round++) {
      // The same buckets, met in opposite orders, as a load balancer's two instances might.
      for (const id of keyIds) ra.record(hit(id));
      for (const id of [...keyIds].reverse()) rb.record(hit(id));
      await Promise.all([ra.flush(), rb.flush()]);
      expect(await written()).toBe(round * 2 * keyIds.length); // neither write failed (a deadlock, say)
    }
  });
});
