import { randomUUID } from 'node:crypto';
import type { Response, Test } from 'supertest';
import type { Role } from '../../src/common/principal';
import { createAccount, expectError, expectRateLimitHeaders, startApp, TestAccount, TestApp, TestUser } from '../utils/test-app';

const NEW_PASSWORD = 'a new and long enough passphrase';
const DAY_MS = 24 * 3600 * 1000;

describe('team: invitations, roles, removal; password and me', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  }, 60_000);
  afterAll(() => t.close());

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const freshEmail = (tag = 'invitee') => `${tag}-${randomUUID()}@example.com`;
  const invite = (by: { token: string }, email: string, role: Role): Promise<Response> =>
    t.http.post('/api/v1/team/invitations').set(bearer(by.token)).send({ email, role });
  const accept = (token: string, password: string): Promise<Response> =>
    t.http.post('/api/v1/auth/invitations/accept').send({ token, password });
  const preview = (token: string): Promise<Response> => t.http.post('/api/v1/auth/invitations/preview').send({ token });
  const changeRole = (by: { token: string }, userId: string, role: Role): Promise<Response> =>
    t.http.patch(`/api/v1/team/members/${userId}`).set(bearer(by.token)).send({ role });
  const remove = (by: { token: string }, userId: string): Promise<Response> =>
    t.http.delete(`/api/v1/team/members/${userId}`).set(bearer(by.token));
  const me = (token: string): Test => t.http.get('/api/v1/auth/me').set(bearer(token));
  const members = async (by: { token: string }): Promise<Array<{ id: string; email: string; role: Role }>> =>
    (await t.http.get('/api/v1/team/members').set(bearer(by.token)).expect(200)).body.data;
  const roleInDb = async (userId: string) => (await t.prisma.user.findUnique({ where: { id: userId } }))?.role;

  describe('invitations', () => {
    let account: TestAccount;
    let admin: TestUser;

    beforeAll(async () => {
      account = await createAccount(t);
      admin = await account.addUser('ADMIN');
    });

    it.each(['OWNER', 'ADMIN'] as const)('lets an %s invite: 201 {id, email, role, expiresAt in 7 days, token}', async (role) => {
      const inviter = role === 'OWNER' ? account.owner : admin;
      const email = freshEmail();
      const res = await invite(inviter, email, 'DEVELOPER');
      expect(res.status).toBe(201);
      expectRateLimitHeaders(res);
      expect(res.body).toEqual({
        id: expect.any(String),
        email,
        role: 'DEVELOPER',
        expiresAt: expect.any(String),
        token: expect.any(String),
        emailed: false,
      });
      const inSevenDays = Date.now() + 7 * DAY_MS;
      expect(Math.abs(Date.parse(res.body.expiresAt) - inSevenDays)).toBeLessThan(10 * 60 * 1000);
      expect(res.body.token.length).toBeGreaterThanOrEqual(32);
    });

    it('lower-cases the invited email', async () => {
      const email = freshEmail('MixedCase');
      const res = await invite(account.owner, email, 'ANALYST');
      expect(res.status).toBe(201);
      expect(res.body.email).toBe(email.toLowerCase());
    });

    it('never shows the invitation token again: not in the member list, not in the audit log, not stored in clear', async () => {
      const res = await invite(account.owner, freshEmail(), 'ANALYST');
      expect(res.status).toBe(201);
      const token: string = res.body.token;
      const list = await t.http.get('/api/v1/team/members').set(bearer(account.owner.token)).expect(200);
      expect(JSON.stringify(list.body)).not.toContain(token);
      const audit = await t.http.get('/api/v1/audit-log?limit=200').set(bearer(account.owner.token)).expect(200);
      expect(audit.body.data.map((e: { action: string }) => e.action)).toContain('team.invitation_created');
      expect(JSON.stringify(audit.body)).not.toContain(token);
      const row = await t.prisma.invitation.findUniqueOrThrow({ where: { id: res.body.id } });
      expect(JSON.stringify(row)).not.toContain(token);
    });

    it('accept answers like login; the new user has the invited role, is a member, and the token is single use', async () => {
      const email = freshEmail();
      const inv = await invite(admin, email, 'DEVELOPER');
      expect(inv.status).toBe(201);
      // Before choosing a password, the invitee learns whom they join, as whom, invited by whom.
      const seen = await preview(inv.body.token);
      expect(seen.status).toBe(200);
      expectRateLimitHeaders(seen);
      expect(seen.body).toEqual({
        accountName: expect.any(String),
        invitedBy: admin.email,
        email,
        role: 'DEVELOPER',
        expiresAt: inv.body.expiresAt,
      });
      expect(seen.body.accountName).toBe((await t.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).name);
      const res = await accept(inv.body.token, NEW_PASSWORD);
      expect(res.status).toBe(200);
      expectRateLimitHeaders(res);
      expect(res.body).toEqual({ token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/), expiresIn: 86400 });

      const who = await me(res.body.token);
      expect(who.status).toBe(200);
      expect(who.body).toMatchObject({ email, role: 'DEVELOPER', account: { id: account.id } });
      expect((await members(account.owner)).find((m) => m.email === email)).toEqual({
        id: who.body.id,
        email,
        role: 'DEVELOPER',
        mfa: false,
        createdAt: expect.any(String),
      });
      await t.http.post('/api/v1/auth/login').send({ email, password: NEW_PASSWORD }).expect(200);

      const again = await accept(inv.body.token, 'yet another long passphrase');
      expectError(again, 401, 'invalid_credentials');
      expectError(await preview(inv.body.token), 401, 'invalid_credentials');
      expectRateLimitHeaders(again);
      expect(await t.prisma.user.count({ where: { email } })).toBe(1);
    });

    it('refuses an expired invitation with 401 invalid_credentials', async () => {
      const email = freshEmail();
      const inv = await invite(account.owner, email, 'ANALYST');
      await t.prisma.invitation.update({ where: { id: inv.body.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      expectError(await accept(inv.body.token, NEW_PASSWORD), 401, 'invalid_credentials');
      expect(await t.prisma.user.count({ where: { email } })).toBe(0);
    });

    it('refuses an unknown token with 401 invalid_credentials', async () => {
      const res = await accept(`ghi_${randomUUID()}`, NEW_PASSWORD);
      expectError(res, 401, 'invalid_credentials');
      expectRateLimitHeaders(res);
      expectError(await preview(`ghi_${randomUUID()}`), 401, 'invalid_credentials');
      expectError(await preview(''), 400, 'validation_failed');
    });

    it('refuses a weak password with 400 validation_failed, creates no user, and keeps the invitation usable', async () => {
      const email = freshEmail();
      const inv = await invite(account.owner, email, 'ANALYST');
      for (const password of ['short pass', email, email.toUpperCase()]) {
        const res = await accept(inv.body.token, password);
        expectError(res, 400, 'validation_failed');
        expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'password' })]));
        expect(await t.prisma.user.count({ where: { email } })).toBe(0);
      }
      expect((await accept(inv.body.token, NEW_PASSWORD)).status).toBe(200);
    });

    it('invites an email that has a user like any other — nobody learns who is a customer — and accepting it is 409', async () => {
      const other = await createAccount(t);
      for (const email of [admin.email, other.owner.email, other.owner.email.toUpperCase()]) {
        const res = await invite(account.owner, email, 'ANALYST');
        expect(res.status).toBe(201);
        expect(Object.keys(res.body).sort()).toEqual(['email', 'emailed', 'expiresAt', 'id', 'role', 'token']);
        expectError(await accept(res.body.token, NEW_PASSWORD), 409, 'conflict');
      }
      expect(await roleInDb(admin.id)).toBe('ADMIN');
    });

    it('answers 409 conflict on accept when the email got a user meanwhile, and creates nothing', async () => {
      const email = freshEmail();
      const inv = await invite(account.owner, email, 'ANALYST');
      const other = await createAccount(t);
      const first = await invite(other.owner, email, 'DEVELOPER');
      expect((await accept(first.body.token, NEW_PASSWORD)).status).toBe(200);
      expectError(await accept(inv.body.token, NEW_PASSWORD), 409, 'conflict');
      expect(await t.prisma.user.findMany({ where: { email } })).toEqual([
        expect.objectContaining({ accountId: other.id, role: 'DEVELOPER' }),
      ]);
    });

    describe('managed', () => {
      const listed = async (by: { token: string }) =>
        (await t.http.get('/api/v1/team/invitations').set(bearer(by.token)).expect(200)).body.data as Array<Record<string, unknown>>;
      const revoke = (by: { token: string }, id: string) => t.http.delete(`/api/v1/team/invitations/${id}`).set(bearer(by.token));

      it('lists pending invitations with their inviter, newest first, never a token; accepted, revoked and expired ones drop out', async () => {
        const team = await createAccount(t);
        const first = await invite(team.owner, freshEmail(), 'DEVELOPER');
        const second = await invite(team.owner, freshEmail(), 'ANALYST');
        const accepted = await invite(team.owner, freshEmail(), 'ANALYST');
        expect((await accept(accepted.body.token, NEW_PASSWORD)).status).toBe(200);
        const expired = await invite(team.owner, freshEmail(), 'ANALYST');
        await t.prisma.invitation.update({ where: { id: expired.body.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
        const list = await listed(team.owner);
        expect(list).toEqual([
          {
            id: second.body.id,
            email: second.body.email,
            role: 'ANALYST',
            expiresAt: second.body.expiresAt,
            createdAt: expect.any(String),
            invitedBy: { id: team.owner.id, email: team.owner.email },
          },
          expect.objectContaining({ id: first.body.id }),
        ]);
        expect(JSON.stringify(list)).not.toContain(first.body.token);
        expect(await listed(account.owner)).not.toContainEqual(expect.objectContaining({ id: first.body.id })); // another account
      });

      it('revokes: the token stops working, the revocation is audited, and a second revoke is 404', async () => {
        const inv = await invite(admin, freshEmail(), 'DEVELOPER');
        const res = await revoke(admin, inv.body.id);
        expect(res.status).toBe(204);
        expectRateLimitHeaders(res);
        expectError(await accept(inv.body.token, NEW_PASSWORD), 401, 'invalid_credentials');
        expectError(await revoke(admin, inv.body.id), 404, 'not_found');
        const audit = await t.http.get('/api/v1/audit-log').query({ action: 'team.invitation_revoked' }).set(bearer(account.owner.token));
        expect(audit.body.data[0]).toMatchObject({ targetId: inv.body.id, actorId: admin.id });
      });

      it('keeps an OWNER invitation out of an ADMIN’s reach, and another account’s out of anyone’s (404)', async () => {
        const inv = await invite(account.owner, freshEmail(), 'OWNER');
        expectError(await revoke(admin, inv.body.id), 403, 'insufficient_permissions');
        const other = await createAccount(t);
        expectError(await revoke(other.owner, inv.body.id), 404, 'not_found');
        expect((await accept(inv.body.token, NEW_PASSWORD)).status).toBe(200);
      });

      it('replaces a pending invitation when the same email is invited again', async () => {
        const email = freshEmail();
        const old = await invite(account.owner, email, 'ANALYST');
        const renewed = await invite(admin, email.toUpperCase(), 'DEVELOPER');
        expect((await listed(account.owner)).filter((i) => i.email === email)).toEqual([expect.objectContaining({ id: renewed.body.id })]);
        expectError(await accept(old.body.token, NEW_PASSWORD), 401, 'invalid_credentials');
        expect((await accept(renewed.body.token, NEW_PASSWORD)).body.token).toEqual(expect.any(String));
        expect((await t.prisma.user.findUniqueOrThrow({ where: { email } })).role).toBe('DEVELOPER');
      });

      it('lets no removed ADMIN come back: their pending invitations die with their membership', async () => {
        const team = await createAccount(t);
        const rogue = await team.addUser('ADMIN');
        const backdoor = await invite(rogue, freshEmail('other-address-of-the-admin'), 'ADMIN');
        expect((await remove(team.owner, rogue.id)).status).toBe(204);
        expectError(await accept(backdoor.body.token, NEW_PASSWORD), 401, 'invalid_credentials');
        expect((await members(team.owner)).map((m) => m.id)).toEqual([team.owner.id]);
        expect(await listed(team.owner)).toEqual([]);
      });

      it('lets invitations die with the inviter’s right to send them: an ADMIN demoted, an OWNER made ADMIN', async () => {
        const team = await createAccount(t);
        const demoted = await team.addUser('ADMIN');
        const byAdmin = await invite(demoted, freshEmail(), 'DEVELOPER');
        expect((await changeRole(team.owner, demoted.id, 'DEVELOPER')).status).toBe(200);
        expectError(await preview(byAdmin.body.token), 401, 'invalid_credentials');
        expectError(await accept(byAdmin.body.token, NEW_PASSWORD), 401, 'invalid_credentials');

        const second = await team.addUser('OWNER');
        const ownerInvite = await invite(second, freshEmail(), 'OWNER');
        const analystInvite = await invite(second, freshEmail(), 'ANALYST');
        expect((await changeRole(team.owner, second.id, 'ADMIN')).status).toBe(200);
        expectError(await accept(ownerInvite.body.token, NEW_PASSWORD), 401, 'invalid_credentials');
        expect((await accept(analystInvite.body.token, NEW_PASSWORD)).status).toBe(200); // still within an ADMIN's reach
      });
    });

    it('lets an OWNER invite an OWNER, but not an ADMIN (403)', async () => {
      const res = await invite(admin, freshEmail(), 'OWNER');
      expectError(res, 403, 'insufficient_permissions');
      expectRateLimitHeaders(res);
      const email = freshEmail();
      const ok = await invite(account.owner, email, 'OWNER');
      expect(ok.status).toBe(201);
      const joined = await accept(ok.body.token, NEW_PASSWORD);
      expect((await me(joined.body.token)).body.role).toBe('OWNER');
    });

    it('rejects a malformed invitation body with 400', async () => {
      expectError(await invite(account.owner, 'not-an-email', 'ANALYST'), 400, 'validation_failed');
      expectError(await invite(account.owner, freshEmail(), 'ROOT' as Role), 400, 'validation_failed');
      const extra = await t.http
        .post('/api/v1/team/invitations')
        .set(bearer(account.owner.token))
        .send({ email: freshEmail(), role: 'ANALYST', admin: true });
      expectError(extra, 400, 'validation_failed');
    });
  });

  describe('roles', () => {
    it('keeps OWNER out of an ADMIN’s reach: no promoting to, demoting or removing an OWNER (403)', async () => {
      const account = await createAccount(t);
      const admin = await account.addUser('ADMIN');
      const dev = await account.addUser('DEVELOPER');
      const secondOwner = await account.addUser('OWNER');
      for (const res of [
        await changeRole(admin, dev.id, 'OWNER'),
        await changeRole(admin, admin.id, 'OWNER'),
        await changeRole(admin, secondOwner.id, 'ADMIN'),
        await remove(admin, secondOwner.id),
        await remove(admin, account.owner.id),
      ]) {
        expectError(res, 403, 'insufficient_permissions');
        expectRateLimitHeaders(res);
      }
      expect(await roleInDb(dev.id)).toBe('DEVELOPER');
      expect(await roleInDb(admin.id)).toBe('ADMIN');
      expect(await roleInDb(secondOwner.id)).toBe('OWNER');
      expect(await roleInDb(account.owner.id)).toBe('OWNER');
    });

    it('lets an ADMIN change and remove non-OWNER members', async () => {
      const account = await createAccount(t);
      const admin = await account.addUser('ADMIN');
      const dev = await account.addUser('DEVELOPER');
      const res = await changeRole(admin, dev.id, 'ANALYST');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: dev.id, email: dev.email, role: 'ANALYST', mfa: false, createdAt: expect.any(String) });
      expect((await remove(admin, dev.id)).status).toBe(204);
      expect(await roleInDb(dev.id)).toBeUndefined();
    });

    it('lets an OWNER promote to OWNER', async () => {
      const account = await createAccount(t);
      const dev = await account.addUser('DEVELOPER');
      const res = await changeRole(account.owner, dev.id, 'OWNER');
      expect(res.status).toBe(200);
      expect(res.body.role).toBe('OWNER');
      expect((await me(dev.token)).body.role).toBe('OWNER');
    });

    it('never demotes or removes the last OWNER (409), but does once a second OWNER exists', async () => {
      const account = await createAccount(t);
      const owner = account.owner;
      const other = await account.addUser('ADMIN');
      for (const res of [await changeRole(owner, owner.id, 'ADMIN'), await remove(owner, owner.id)]) {
        expectError(res, 409, 'conflict');
        expectRateLimitHeaders(res);
      }
      expect(await roleInDb(owner.id)).toBe('OWNER');

      expect((await changeRole(owner, other.id, 'OWNER')).status).toBe(200);
      const demoted = await changeRole(owner, owner.id, 'ADMIN');
      expect(demoted.status).toBe(200);
      expect(demoted.body.role).toBe('ADMIN');
      // `other` is now the last OWNER: the same rule protects them.
      expectError(await changeRole(other, other.id, 'DEVELOPER'), 409, 'conflict');
      expectError(await remove(other, other.id), 409, 'conflict');
      expect((await changeRole(other, owner.id, 'OWNER')).status).toBe(200);
      expect((await remove(other, owner.id)).status).toBe(204);
      expect(await t.prisma.user.findMany({ where: { accountId: account.id }, select: { id: true, role: true } })).toEqual([
        { id: other.id, role: 'OWNER' },
      ]);
    });

    it('keeps one OWNER when two OWNERs demote each other at the same time', async () => {
      const account = await createAccount(t);
      const second = await account.addUser('OWNER');
      const answers = await Promise.all([changeRole(account.owner, second.id, 'ADMIN'), changeRole(second, account.owner.id, 'ADMIN')]);
      // The loser is refused either by the rule (409) or, if already demoted when authorised, by its role (403).
      const [won, lost] = [...answers].sort((x, y) => x.status - y.status);
      expect(won.status).toBe(200);
      expect([403, 409]).toContain(lost.status);
      expect(await t.prisma.user.count({ where: { accountId: account.id, role: 'OWNER' } })).toBe(1);
    });

    it('applies a role change at once, to the token the member already holds', async () => {
      const account = await createAccount(t);
      const dev = await account.addUser('DEVELOPER');
      const admin = await account.addUser('ADMIN');
      await t.http.get('/api/v1/api-keys').set(bearer(dev.token)).expect(200);
      await t.http.get('/api/v1/audit-log').set(bearer(admin.token)).expect(200);

      expect((await changeRole(account.owner, dev.id, 'ANALYST')).status).toBe(200);
      const refused = await t.http.get('/api/v1/api-keys').set(bearer(dev.token));
      expectError(refused, 403, 'insufficient_permissions');
      expectRateLimitHeaders(refused);
      expect((await me(dev.token)).body.role).toBe('ANALYST');

      expect((await changeRole(account.owner, admin.id, 'DEVELOPER')).status).toBe(200);
      expectError(await invite(admin, freshEmail(), 'ANALYST'), 403, 'insufficient_permissions');
      expectError(await t.http.get('/api/v1/audit-log').set(bearer(admin.token)), 403, 'insufficient_permissions');
    });

    it('ends a removed member’s tokens at once (401 invalid_token)', async () => {
      const account = await createAccount(t);
      const dev = await account.addUser('DEVELOPER');
      await me(dev.token).expect(200);
      await t.http.get('/api/v1/api-keys').set(bearer(dev.token)).expect(200);
      expect((await remove(account.owner, dev.id)).status).toBe(204);
      for (const res of [await me(dev.token), await t.http.get('/api/v1/api-keys').set(bearer(dev.token))]) {
        expectError(res, 401, 'invalid_token');
        expectRateLimitHeaders(res);
      }
      expect((await members(account.owner)).map((m) => m.id)).not.toContain(dev.id);
      expectError(await t.http.post('/api/v1/auth/login').send({ email: dev.email, password: dev.password }), 401, 'invalid_credentials');
    });

    it('answers 404 for a member id of another account or of nobody, 400 for a malformed one', async () => {
      const account = await createAccount(t);
      const other = await createAccount(t);
      const stranger = await other.addUser('DEVELOPER');
      for (const id of [stranger.id, other.owner.id, randomUUID()]) {
        expectError(await changeRole(account.owner, id, 'ANALYST'), 404, 'not_found');
        expectError(await remove(account.owner, id), 404, 'not_found');
      }
      expect(await roleInDb(stranger.id)).toBe('DEVELOPER');
      expect(await roleInDb(other.owner.id)).toBe('OWNER');
      for (const id of ['not-a-uuid', '123', `${randomUUID()}x`]) {
        const patched = await changeRole(account.owner, id, 'ANALYST');
        expectError(patched, 400, 'validation_failed');
        expectRateLimitHeaders(patched);
        expectError(await remove(account.owner, id), 400, 'validation_failed');
      }
      const dev = await account.addUser('DEVELOPER');
      expectError(await changeRole(account.owner, dev.id, 'SUPERUSER' as Role), 400, 'validation_failed');
      const extra = await t.http
        .patch(`/api/v1/team/members/${dev.id}`)
        .set(bearer(account.owner.token))
        .send({ role: 'ANALYST', email: 'x@example.com' });
      expectError(extra, 400, 'validation_failed');
      expect(await roleInDb(dev.id)).toBe('DEVELOPER');
    });
  });

  describe('PUT /api/v1/auth/password', () => {
    const changePassword = (token: string, body: object) => t.http.put('/api/v1/auth/password').set(bearer(token)).send(body);
    const login = (email: string, password: string) => t.http.post('/api/v1/auth/login').send({ email, password });

    it('answers a fresh token; older tokens stop working; the new password logs in, the old one does not', async () => {
      const account = await createAccount(t);
      const user = await account.addUser('DEVELOPER');
      const loggedIn = (await login(user.email, user.password).expect(200)).body.token as string;
      await me(user.token).expect(200);

      const res = await changePassword(user.token, { currentPassword: user.password, newPassword: NEW_PASSWORD });
      expect(res.status).toBe(200);
      expectRateLimitHeaders(res);
      expect(res.body).toEqual({ token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/), expiresIn: 86400 });

      for (const old of [user.token, loggedIn]) {
        const refused = await me(old);
        expectError(refused, 401, 'invalid_token');
        expect(refused.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      }
      expect((await me(res.body.token)).body).toMatchObject({ id: user.id, role: 'DEVELOPER' });
      await login(user.email, NEW_PASSWORD).expect(200);
      expectError(await login(user.email, user.password), 401, 'invalid_credentials');
    });

    it('refuses a wrong currentPassword with 400 validation_failed on currentPassword, and changes nothing', async () => {
      const account = await createAccount(t);
      const user = await account.addUser('ANALYST');
      const res = await changePassword(user.token, { currentPassword: 'not the current one', newPassword: NEW_PASSWORD });
      expectError(res, 400, 'validation_failed');
      expectRateLimitHeaders(res);
      expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'currentPassword' })]));
      await me(user.token).expect(200);
      await login(user.email, user.password).expect(200);
      expectError(await login(user.email, NEW_PASSWORD), 401, 'invalid_credentials');
    });

    it('refuses a weak newPassword with 400; the old password and token keep working', async () => {
      const account = await createAccount(t);
      const user = await account.addUser('ADMIN');
      for (const newPassword of ['too short', user.email, `x${user.email}x`]) {
        const res = await changePassword(user.token, { currentPassword: user.password, newPassword });
        expectError(res, 400, 'validation_failed');
        expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'newPassword' })]));
      }
      expectError(await changePassword(user.token, { currentPassword: user.password }), 400, 'validation_failed');
      expectError(
        await changePassword(user.token, { currentPassword: user.password, newPassword: NEW_PASSWORD, extra: 1 }),
        400,
        'validation_failed',
      );
      await me(user.token).expect(200);
      await login(user.email, user.password).expect(200);
    });
  });

  it('GET /api/v1/auth/me → {id, email, role, account: {id, name}, plan, limits}', async () => {
    const account = await createAccount(t);
    const analyst = await account.addUser('ANALYST');
    const res = await me(analyst.token);
    expect(res.status).toBe(200);
    expectRateLimitHeaders(res);
    const row = await t.prisma.account.findUniqueOrThrow({ where: { id: account.id } });
    expect(res.body).toEqual({
      id: analyst.id,
      email: analyst.email,
      role: 'ANALYST',
      account: { id: account.id, name: row.name },
      plan: {
        id: 'free',
        name: expect.any(String),
        apiRequestsPerMinute: 60,
        managementRequestsPerMinute: 120,
        challengeWaitMs: 500,
      },
      limits: { challengeWaitMs: [250, 500, 1000, 2000], nonceTtlSeconds: { min: 30, max: 3600 } },
    });
  });

  it('GET /api/v1/auth/me gives the values the settings routes accept: each one accepted, anything else refused and nothing changed', async () => {
    const account = await createAccount(t);
    const auth = bearer(account.owner.token);
    const { limits } = (await me(account.owner.token).expect(200)).body;
    const key = await account.createKey({ scopes: ['widget'] });
    const setDifficulty = (challengeWaitMs: unknown) => t.http.patch(`/api/v1/api-keys/${key.id}`).set(auth).send({ challengeWaitMs });
    const storedDifficulty = async () => (await t.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } })).challengeWaitMs;
    for (const wait of limits.challengeWaitMs) {
      expect((await setDifficulty(wait).expect(200)).body.challengeWaitMs).toBe(wait);
    }
    const last = limits.challengeWaitMs[limits.challengeWaitMs.length - 1];
    for (const bad of [0, 249, 251, 750, last * 2, 1.5, '500']) {
      expectError(await setDifficulty(bad), 400, 'validation_failed');
      expect(await storedDifficulty()).toBe(last);
    }
    const setTtl = (nonceTtlSeconds: number) => t.http.patch('/api/v1/account').set(auth).send({ nonceTtlSeconds });
    const bounds = limits.nonceTtlSeconds;
    await setTtl(bounds.min).expect(200);
    expectError(await setTtl(bounds.min - 1), 400, 'validation_failed');
    await setTtl(bounds.max).expect(200);
    expectError(await setTtl(bounds.max + 1), 400, 'validation_failed');
    expect((await t.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).nonceTtlSeconds).toBe(bounds.max);
  });
});
