import { randomUUID } from 'node:crypto';
import { generateSync } from 'otplib';
import { SESSION_SECRET, StartedSession } from '../../src/credentials/session-cookie';
import { SessionService } from '../../src/credentials/session.service';
import { createAccount, expectError, expectRateLimitHeaders, startApp, TestAccount, TestApp, TestUser } from '../utils/test-app';

const MAC_CHROME = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const WINDOWS_FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0';

interface Listed {
  id: string;
  device: string;
  ip: string;
  method: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  current: boolean;
}

describe('Sessions: GET/DELETE /api/v1/auth/sessions, DELETE /api/v1/team/members/:userId/sessions', () => {
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t);
  }, 60_000);
  afterAll(() => t.close());

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const me = (token: string) => t.http.get('/api/v1/auth/me').set(bearer(token));
  const login = async (user: TestUser, agent = MAC_CHROME): Promise<string> =>
    (await t.http.post('/api/v1/auth/login').set('User-Agent', agent).send({ email: user.email, password: user.password }).expect(200)).body
      .token as string;
  const list = async (token: string): Promise<Listed[]> =>
    (await t.http.get('/api/v1/auth/sessions').set(bearer(token)).expect(200)).body.data;
  const jtiOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).jti as string;

  it('lists each sign-in as a session named by its device, newest first, the caller’s marked current', async () => {
    const user = await account.addUser('DEVELOPER');
    const laptop = await login(user, MAC_CHROME);
    const desktop = await login(user, WINDOWS_FIREFOX);
    const res = await t.http.get('/api/v1/auth/sessions').set(bearer(laptop));
    expect(res.status).toBe(200);
    expectRateLimitHeaders(res);
    const sessions: Listed[] = res.body.data;
    expect(sessions).toEqual([
      {
        id: jtiOf(desktop),
        device: 'Firefox on Windows',
        ip: expect.any(String),
        method: 'password',
        createdAt: expect.any(String),
        lastSeenAt: expect.any(String),
        expiresAt: expect.any(String),
        current: false,
      },
      expect.objectContaining({ id: jtiOf(laptop), device: 'Chrome on macOS', method: 'password', current: true }),
    ]);
    const exp = JSON.parse(Buffer.from(laptop.split('.')[1], 'base64url').toString()).exp as number;
    expect(Math.abs(new Date(sessions[1].expiresAt).getTime() - exp * 1000)).toBeLessThan(2000);
    expect(sessions[0].ip).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
    // The other device sees the same two, itself current.
    expect((await list(desktop)).map((s) => [s.id, s.current])).toEqual([
      [jtiOf(desktop), true],
      [jtiOf(laptop), false],
    ]);
  });

  it('ends one session: its token is refused at once, the other goes on, and the log says who ended it', async () => {
    const user = await account.addUser('ANALYST');
    const laptop = await login(user, MAC_CHROME);
    const desktop = await login(user, WINDOWS_FIREFOX);
    await me(desktop).expect(200); // cached as valid
    const res = await t.http.delete(`/api/v1/auth/sessions/${jtiOf(desktop)}`).set(bearer(laptop));
    expect(res.status).toBe(204);
    expectRateLimitHeaders(res);
    expectError(await me(desktop), 401, 'invalid_token');
    await me(laptop).expect(200);
    expect((await list(laptop)).map((s) => s.id)).toEqual([jtiOf(laptop)]);
    // Ended already: 404, and nothing more is recorded.
    expectError(await t.http.delete(`/api/v1/auth/sessions/${jtiOf(desktop)}`).set(bearer(laptop)), 404, 'not_found');
    const events = await t.prisma.auditEvent.findMany({
      where: { accountId: account.id, action: 'auth.session_ended', targetId: user.id },
    });
    expect(events).toEqual([
      expect.objectContaining({ actorId: user.id, targetType: 'user', details: { sessionId: jtiOf(desktop), by: 'self' } }),
    ]);
  });

  it('ends the calling session itself like signing out', async () => {
    const user = await account.addUser('ANALYST');
    const token = await login(user);
    await t.http
      .delete(`/api/v1/auth/sessions/${jtiOf(token)}`)
      .set(bearer(token))
      .expect(204);
    expectError(await me(token), 401, 'invalid_token');
  });

  it('answers 404 for another user’s session (their token goes on) and for an unknown id; 400 for a malformed one', async () => {
    const mine = await login(await account.addUser('DEVELOPER'));
    const colleague = await account.addUser('DEVELOPER');
    const theirs = await login(colleague);
    const stranger = await login((await createAccount(t)).owner);
    for (const id of [jtiOf(theirs), jtiOf(stranger), randomUUID()]) {
      expectError(await t.http.delete(`/api/v1/auth/sessions/${id}`).set(bearer(mine)), 404, 'not_found');
    }
    await me(theirs).expect(200);
    await me(stranger).expect(200);
    expect((await list(theirs)).map((s) => s.id)).toEqual([jtiOf(theirs)]);
    expectError(await t.http.delete('/api/v1/auth/sessions/not-a-uuid').set(bearer(mine)), 400, 'validation_failed');
  });

  it('signing out ends the session: it leaves the list', async () => {
    const user = await account.addUser('DEVELOPER');
    const [first, second] = [await login(user), await login(user)];
    await t.http.post('/api/v1/auth/logout').set(bearer(first)).expect(204);
    expect((await list(second)).map((s) => s.id)).toEqual([jtiOf(second)]);
    const row = await t.prisma.session.findUniqueOrThrow({ where: { id: jtiOf(first) } });
    expect(row.endedAt).not.toBeNull();
  });

  it('a password change ends the other sessions; the new token’s session stays and is listed', async () => {
    const user = await account.addUser('DEVELOPER');
    const [first, second] = [await login(user, MAC_CHROME), await login(user, WINDOWS_FIREFOX)];
    const changed = await t.http
      .put('/api/v1/auth/password')
      .set(bearer(first))
      .set('User-Agent', MAC_CHROME)
      .send({ currentPassword: user.password, newPassword: 'a brand new passphrase' })
      .expect(200);
    const fresh = changed.body.token as string;
    for (const old of [first, second]) expectError(await me(old), 401, 'invalid_token');
    expect(await list(fresh)).toEqual([
      expect.objectContaining({ id: jtiOf(fresh), device: 'Chrome on macOS', method: 'password_change', current: true }),
    ]);
  });

  it('a password reset ends every earlier session and starts one by password_reset', async () => {
    const user = await account.addUser('DEVELOPER');
    const old = await login(user);
    const issued = await t.http.post(`/api/v1/team/members/${user.id}/password-reset`).set(bearer(account.owner.token)).expect(201);
    const accepted = await t.http
      .post('/api/v1/auth/password-reset/accept')
      .set('User-Agent', WINDOWS_FIREFOX)
      .send({ token: issued.body.token, newPassword: 'a brand new passphrase' })
      .expect(200);
    expectError(await me(old), 401, 'invalid_token');
    expect(await list(accepted.body.token)).toEqual([
      expect.objectContaining({ device: 'Firefox on Windows', method: 'password_reset', current: true }),
    ]);
    expect((await t.prisma.session.findUniqueOrThrow({ where: { id: jtiOf(old) } })).endedAt).not.toBeNull();
  });

  it('accepting an invitation starts a session by invitation', async () => {
    const email = `joiner-${randomUUID()}@example.com`;
    const inv = await t.http.post('/api/v1/team/invitations').set(bearer(account.owner.token)).send({ email, role: 'ANALYST' }).expect(201);
    const joined = await t.http
      .post('/api/v1/auth/invitations/accept')
      .set('User-Agent', 'curl/8.4.0')
      .send({ token: inv.body.token, password: 'a long enough passphrase' })
      .expect(200);
    expect(await list(joined.body.token)).toEqual([expect.objectContaining({ device: 'curl', method: 'invitation', current: true })]);
  });

  it('a sign-in completed by a TOTP code or a recovery code starts a session by that method', async () => {
    const user = await account.addUser('ANALYST');
    const started = await t.http.post('/api/v1/auth/mfa/totp').set(bearer(user.token)).expect(201);
    const secret = started.body.secret as string;
    const codeAt = (epoch: number) => generateSync({ secret, epoch });
    const confirmed = await t.http
      .post('/api/v1/auth/mfa/totp/confirm')
      .set(bearer(user.token))
      .send({ code: codeAt(Math.floor(Date.now() / 1000)) })
      .expect(200);
    const secondStep = async (code: string) => {
      const first = await t.http
        .post('/api/v1/auth/login')
        .set('User-Agent', MAC_CHROME)
        .send({ email: user.email, password: user.password });
      expect(first.body).toMatchObject({ mfaRequired: true });
      expect(first.headers['set-cookie']).toBeUndefined(); // no session before the second step
      const done = await t.http
        .post('/api/v1/auth/login/mfa')
        .set('User-Agent', MAC_CHROME)
        .send({ mfaToken: first.body.mfaToken, code })
        .expect(200);
      expect(String(done.headers['set-cookie'])).toMatch(
        /^gatehouse_session=ghs_[\w-]{43}; Path=\/api\/v1\/auth\/login; .*HttpOnly; SameSite=Strict$/,
      );
      return done.body.token as string;
    };
    const byTotp = await secondStep(codeAt(Math.floor(Date.now() / 1000) + 30)); // the confirming period's code is spent
    const byRecovery = await secondStep(confirmed.body.recoveryCodes[0]);
    expect((await list(byRecovery)).map((s) => [s.id, s.method, s.device])).toEqual([
      [jtiOf(byRecovery), 'recovery_code', 'Chrome on macOS'],
      [jtiOf(byTotp), 'totp', 'Chrome on macOS'],
    ]);
  });

  it('moves lastSeenAt of a used session at the next flush, and writes nothing before it', async () => {
    const sessions = t.app.get(SessionService);
    await sessions.flushLastSeen(); // what other tests left noted
    const user = await account.addUser('DEVELOPER');
    const [used, idle] = [await login(user, MAC_CHROME), await login(user, WINDOWS_FIREFOX)];
    const before = await t.prisma.session.findMany({ where: { userId: user.id }, orderBy: { createdAt: 'asc' } });
    await me(used).expect(200);
    await me(used).expect(200);
    expect(await t.prisma.session.findMany({ where: { userId: user.id }, orderBy: { createdAt: 'asc' } })).toEqual(before);
    const flushedAt = new Date(Date.now() + 60_000);
    expect(await sessions.flushLastSeen(flushedAt)).toBe(1);
    const listed = await list(idle); // this use is noted for the next flush
    expect(listed.find((s) => s.id === jtiOf(used))!.lastSeenAt).toBe(flushedAt.toISOString());
    expect(listed.find((s) => s.id === jtiOf(idle))!.lastSeenAt).toBe(before.find((s) => s.id === jtiOf(idle))!.lastSeenAt.toISOString());
  });

  it('keeps a token issued before sessions existed working; it has no session to list', async () => {
    const user = await account.addUser('ANALYST'); // its token was issued without a session
    await me(user.token).expect(200);
    expect(await list(user.token)).toEqual([]);
  });

  it('leaves expired sessions out of the list and purges them', async () => {
    const user = await account.addUser('DEVELOPER');
    const token = await login(user);
    const stale = randomUUID();
    await t.prisma.session.create({
      data: {
        id: stale,
        userId: user.id,
        userAgent: MAC_CHROME,
        ip: '198.51.100.1',
        method: 'password',
        expiresAt: new Date(Date.now() - 1000),
      },
    });
    expect((await list(token)).map((s) => s.id)).toEqual([jtiOf(token)]);
    await t.app.get(SessionService).purgeExpired();
    expect(await t.prisma.session.findUnique({ where: { id: stale } })).toBeNull();
    expect(await t.prisma.session.findUnique({ where: { id: jtiOf(token) } })).not.toBeNull();
  });

  describe('DELETE /api/v1/team/members/:userId/sessions', () => {
    const endAll = (actorToken: string, userId: string) => t.http.delete(`/api/v1/team/members/${userId}/sessions`).set(bearer(actorToken));

    it('lets an OWNER end every session of a member: all their tokens, old ones too, are refused; one audit event per session', async () => {
      const member = await account.addUser('DEVELOPER');
      const [a, b] = [await login(member), await login(member, WINDOWS_FIREFOX)];
      const res = await endAll(account.owner.token, member.id);
      expect(res.status).toBe(204);
      expectRateLimitHeaders(res);
      for (const token of [a, b, member.token]) expectError(await me(token), 401, 'invalid_token');
      await me(account.owner.token).expect(200);
      const events = await t.prisma.auditEvent.findMany({ where: { action: 'auth.session_ended', targetId: member.id } });
      expect(events.map((e) => e.details).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))).toEqual(
        [
          { sessionId: jtiOf(a), by: 'admin' },
          { sessionId: jtiOf(b), by: 'admin' },
        ].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
      );
      expect(events.every((e) => e.actorId === account.owner.id)).toBe(true);
      // The member signs in again: a fresh session, alone in the list.
      const again = await login(member);
      expect((await list(again)).map((s) => s.id)).toEqual([jtiOf(again)]);
    });

    it('lets an ADMIN end a DEVELOPER’s sessions but not an OWNER’s (403, the OWNER’s token goes on)', async () => {
      const admin = await account.addUser('ADMIN');
      const developer = await account.addUser('DEVELOPER');
      const devToken = await login(developer);
      await endAll(admin.token, developer.id).expect(204);
      expectError(await me(devToken), 401, 'invalid_token');
      const owner = await account.addUser('OWNER');
      const ownerToken = await login(owner);
      expectError(await endAll(admin.token, owner.id), 403, 'insufficient_permissions');
      await me(ownerToken).expect(200);
      expect(await list(ownerToken)).toHaveLength(1);
    });

    it('refuses a DEVELOPER (403), and answers 404 for a member of another account (whose token goes on)', async () => {
      const developer = await account.addUser('DEVELOPER');
      const target = await account.addUser('ANALYST');
      expectError(await endAll(developer.token, target.id), 403, 'insufficient_permissions');
      await me(target.token).expect(200);
      const other = await createAccount(t);
      expectError(await endAll(account.owner.token, other.owner.id), 404, 'not_found');
      await me(other.owner.token).expect(200);
    });
  });

  describe('The browser session cookie and POST /api/v1/auth/login/session', () => {
    const EXCHANGE = '/api/v1/auth/login/session';
    const COOKIE = /^gatehouse_session=(ghs_[A-Za-z0-9_-]{43}); Path=\/api\/v1\/auth\/login; Max-Age=(\d+); HttpOnly; SameSite=Strict$/;
    const ownOrigin = () => new URL(t.config.mail.publicUrl).origin;
    const signIn = async (user: TestUser, cookie?: string) => {
      const req = t.http.post('/api/v1/auth/login').set('User-Agent', MAC_CHROME);
      if (cookie !== undefined) req.set('Cookie', `gatehouse_session=${cookie}`);
      const res = await req.send({ email: user.email, password: user.password }).expect(200);
      const match = COOKIE.exec(String(res.headers['set-cookie']));
      expect(match).not.toBeNull();
      return { token: res.body.token as string, secret: match![1], maxAge: Number(match![2]), body: res.body as object };
    };
    /** A session as a sign-in starts it, without the login route (whose per-IP limit this suite would reach). */
    const started = async (user: TestUser) => {
      const user_ = await t.prisma.user.findUniqueOrThrow({ where: { email: user.email } });
      const issued = await t.app.get(SessionService).start(t.prisma, user_, 'password', { ip: '127.0.0.1', userAgent: MAC_CHROME });
      return { token: issued.token, secret: (issued as { [SESSION_SECRET]?: StartedSession })[SESSION_SECRET]!.secret };
    };
    const exchange = (secret: string | undefined, headers: Record<string, string> = { 'X-Gatehouse-Session': '1' }) => {
      const req = t.http.post(EXCHANGE).set(headers);
      return secret === undefined ? req : req.set('Cookie', `other=1; gatehouse_session=${secret}`);
    };

    it('a sign-in sets an HttpOnly, SameSite=Strict cookie for the sign-in routes only, never in the body; only its hash is stored', async () => {
      const user = await account.addUser('ANALYST');
      const { token, secret, maxAge, body } = await signIn(user);
      expect(Object.keys(body).sort()).toEqual(['expiresIn', 'token']);
      expect(maxAge).toBeGreaterThan(86_000);
      expect(maxAge).toBeLessThanOrEqual(86_400);
      const row = await t.prisma.session.findUniqueOrThrow({ where: { id: jtiOf(token) } });
      expect(row.secretHash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain(secret.slice(4));
    });

    it('exchanges the cookie for a short-lived token of the same session, without a new session row', async () => {
      const user = await account.addUser('DEVELOPER');
      const { token, secret } = await started(user);
      const res = await exchange(secret).set('Origin', ownOrigin());
      expect(res.status).toBe(200);
      expectRateLimitHeaders(res);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.body).toEqual({ token: expect.any(String), expiresIn: 300, sessionExpiresIn: expect.any(Number) });
      expect(res.body.sessionExpiresIn).toBeGreaterThan(86_000);
      const short = res.body.token as string;
      expect(jtiOf(short)).toBe(jtiOf(token));
      const { iat, exp } = JSON.parse(Buffer.from(short.split('.')[1], 'base64url').toString()) as { iat: number; exp: number };
      expect(exp - iat).toBe(300);
      await me(short).expect(200);
      await exchange(secret).expect(200); // without Origin: no cross-origin browser call
      expect(await t.prisma.session.count({ where: { userId: user.id } })).toBe(1);
      expect((await list(short)).map((s) => [s.id, s.current])).toEqual([[jtiOf(token), true]]);
    });

    it('refuses an exchange without the X-Gatehouse-Session header or from another origin (403), and changes nothing', async () => {
      const user = await account.addUser('ANALYST');
      const { secret } = await started(user);
      expectError(await exchange(secret, {}), 403, 'insufficient_permissions');
      expectError(await exchange(secret, { 'X-Gatehouse-Session': 'yes' }), 403, 'insufficient_permissions');
      const foreign = await exchange(secret).set('Origin', 'https://evil.example');
      expectError(foreign, 403, 'insufficient_permissions');
      expectRateLimitHeaders(foreign);
      expectError(await exchange(secret).set('Origin', 'null'), 403, 'insufficient_permissions');
      expect(await t.prisma.session.count({ where: { userId: user.id } })).toBe(1);
    });

    it('counts an exchange per user with a live session (many people share an office address), and per client IP without one', async () => {
      const [first, second] = [await account.addUser('ANALYST'), await account.addUser('DEVELOPER')];
      const [a, b] = [await started(first), await started(second)];
      const perUser = Number((await me(a.token).expect(200)).headers['x-ratelimit-limit']);
      expect(perUser).toBeGreaterThan(30);
      const limits = async (secret: string | undefined) => {
        const res = await exchange(secret);
        return [Number(res.headers['x-ratelimit-limit']), Number(res.headers['x-ratelimit-remaining'])];
      };
      expect(await limits(a.secret)).toEqual([perUser, perUser - 1]);
      expect(await limits(a.secret)).toEqual([perUser, perUser - 2]);
      expect(await limits(b.secret)).toEqual([perUser, perUser - 1]); // the same address, the other user's own allowance
      // Without a live session (no cookie, an unknown or an ended one): the client IP's 30 a minute.
      const [ipLimit] = await limits(undefined);
      expect(ipLimit).toBe(30);
      expect((await limits(`ghs_${'B'.repeat(43)}`))[0]).toBe(30);
      await t.http.post('/api/v1/auth/logout').set(bearer(b.token)).expect(204);
      expect((await limits(b.secret))[0]).toBe(30);
    });

    it('answers 401 missing_credentials without a cookie, invalid_token for an unknown one, token_expired for an expired session', async () => {
      const none = await exchange(undefined);
      expectError(none, 401, 'missing_credentials');
      expect(none.headers['www-authenticate']).toBe('Bearer');
      expectError(await exchange(`ghs_${'A'.repeat(43)}`), 401, 'invalid_token');
      const user = await account.addUser('ANALYST');
      const { token, secret } = await started(user);
      await t.prisma.session.update({ where: { id: jtiOf(token) }, data: { expiresAt: new Date(Date.now() - 1000) } });
      expectError(await exchange(secret), 401, 'token_expired');
    });

    it('signing out with any token of the session ends it: the cookie is cleared, every token and the cookie are refused', async () => {
      const user = await account.addUser('DEVELOPER');
      const { token, secret } = await started(user);
      const short = (await exchange(secret).expect(200)).body.token as string;
      await me(token).expect(200);
      const out = await t.http.post('/api/v1/auth/logout').set(bearer(short)).expect(204);
      expect(String(out.headers['set-cookie'])).toBe('gatehouse_session=; Path=/api/v1/auth/login; Max-Age=0; HttpOnly; SameSite=Strict');
      expectError(await me(short), 401, 'invalid_token');
      expectError(await me(token), 401, 'invalid_token');
      expectError(await exchange(secret), 401, 'invalid_token');
      // Revoked until the session's expiry, not the short token's.
      const revoked = await t.prisma.revokedToken.findUniqueOrThrow({ where: { jti: jtiOf(token) } });
      expect(revoked.expiresAt.getTime()).toBeGreaterThan(Date.now() + 86_000_000);
    });

    it("a new sign-in in a browser whose cookie names the same user's live session replaces it; another user's is left alone", async () => {
      const user = await account.addUser('ANALYST');
      const first = await signIn(user);
      const second = await signIn(user, first.secret);
      expectError(await me(first.token), 401, 'invalid_token');
      expectError(await exchange(first.secret), 401, 'invalid_token');
      expect((await list(second.token)).map((s) => s.id)).toEqual([jtiOf(second.token)]);
      const ended = () =>
        t.prisma.auditEvent.findMany({
          where: { action: 'auth.session_ended', targetId: user.id },
          select: { actorId: true, details: true },
        });
      expect(await ended()).toEqual([{ actorId: user.id, details: { sessionId: jtiOf(first.token), by: 'sign_in' } }]);
      const other = await account.addUser('ANALYST');
      await signIn(other, second.secret);
      await me(second.token).expect(200);
      await exchange(second.secret).expect(200);
      expect(await ended()).toHaveLength(1);
    });
  });
});
