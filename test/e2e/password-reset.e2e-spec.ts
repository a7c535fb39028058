import { randomUUID } from 'node:crypto';
import { eventually } from '../utils/eventually';
import { startInbox, Inbox, tokenIn } from '../utils/smtp';
import { createAccount, expectError, expectRateLimitHeaders, startApp, TestAccount, TestApp, TestUser } from '../utils/test-app';

const NEW_PASSWORD = 'a fresh and long passphrase';
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('password resets, without e-mail', () => {
  let t: TestApp;
  let account: TestAccount;
  let admin: TestUser;

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t);
    admin = await account.addUser('ADMIN');
  }, 60_000);
  afterAll(() => t.close());

  const issue = (by: TestUser, userId: string) => t.http.post(`/api/v1/team/members/${userId}/password-reset`).set(bearer(by.token));
  const accept = (token: string, newPassword = NEW_PASSWORD) =>
    t.http.post('/api/v1/auth/password-reset/accept').send({ token, newPassword });
  const login = (email: string, password: string) => t.http.post('/api/v1/auth/login').send({ email, password });

  it('lets an OWNER or ADMIN issue a one-time token (1 h) that sets a new password and ends every older token', async () => {
    const member = await account.addUser('DEVELOPER');
    const res = await issue(admin, member.id);
    expect(res.status).toBe(201);
    expectRateLimitHeaders(res);
    expect(res.body).toEqual({ token: expect.stringMatching(/^ghr_/), emailed: false, expiresAt: expect.any(String) });
    expect(Math.abs(Date.parse(res.body.expiresAt) - Date.now() - 3600_000)).toBeLessThan(60_000);

    expectError(await accept(res.body.token, 'short'), 400, 'validation_failed'); // the token stays usable
    const accepted = await accept(res.body.token);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ token: expect.any(String), expiresIn: expect.any(Number) });
    await t.http.get('/api/v1/auth/me').set(bearer(accepted.body.token)).expect(200);
    expectError(await t.http.get('/api/v1/auth/me').set(bearer(member.token)), 401, 'invalid_token');
    expectError(await login(member.email, member.password), 401, 'invalid_credentials');
    expect((await login(member.email, NEW_PASSWORD)).status).toBe(200);
    expectError(await accept(res.body.token, 'yet another long passphrase'), 401, 'invalid_credentials'); // once
    const stored = await t.prisma.passwordReset.findMany({ where: { userId: member.id } });
    expect(JSON.stringify(stored)).not.toContain(res.body.token);
  });

  it('keeps an OWNER out of an ADMIN’s reach, and another account’s members out of anyone’s', async () => {
    expectError(await issue(admin, account.owner.id), 403, 'insufficient_permissions');
    expect(await t.prisma.passwordReset.count({ where: { userId: account.owner.id } })).toBe(0);
    expect((await issue(account.owner, admin.id)).status).toBe(201);
    const other = await createAccount(t);
    expectError(await issue(account.owner, other.owner.id), 404, 'not_found');
  });

  it('ends an older reset when a newer one is issued, and refuses an expired or unknown token', async () => {
    const member = await account.addUser('ANALYST');
    const older = (await issue(account.owner, member.id)).body.token;
    const newer = (await issue(account.owner, member.id)).body.token;
    expectError(await accept(older), 401, 'invalid_credentials');
    await t.prisma.passwordReset.updateMany({
      where: { userId: member.id, usedAt: null },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expectError(await accept(newer), 401, 'invalid_credentials');
    expectError(await accept(`ghr_${'A'.repeat(43)}`), 401, 'invalid_credentials');
    expect((await login(member.email, member.password)).status).toBe(200); // nothing changed
  });

  it('has no "forgot password" without SMTP_URL: 404', async () => {
    expectError(await t.http.post('/api/v1/auth/password-reset/request').send({ email: admin.email }), 404, 'not_found');
  });
});

describe('e-mail through a real SMTP server (SMTP_URL)', () => {
  let inbox: Inbox;
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    inbox = await startInbox();
    t = await startApp({
      SMTP_URL: inbox.url,
      MAIL_FROM: 'Gatehouse <no-reply@gatehouse.test>',
      PUBLIC_URL: 'https://gatehouse.example.com',
    });
    account = await createAccount(t);
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await inbox.close();
  });

  const receivedBy = async (to: string) => {
    await eventually(() => expect(inbox.messages.some((m) => m.to && JSON.stringify(m.to).includes(to))).toBe(true));
    return inbox.messages.find((m) => JSON.stringify(m.to).includes(to))!;
  };

  it('e-mails an invitation link under PUBLIC_URL instead of answering the token', async () => {
    const email = `mailed-${randomUUID()}@example.com`;
    const res = await t.http.post('/api/v1/team/invitations').set(bearer(account.owner.token)).send({ email, role: 'ANALYST' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ token: null, emailed: true });
    const mail = await receivedBy(email);
    expect(mail.from?.text).toBe('"Gatehouse" <no-reply@gatehouse.test>');
    expect(mail.text).toContain('https://gatehouse.example.com/accept-invitation#token=');
    const joined = await t.http.post('/api/v1/auth/invitations/accept').send({ token: tokenIn(mail), password: NEW_PASSWORD });
    expect(joined.status).toBe(200);
    // The browser's session cookie, Secure under an https PUBLIC_URL.
    expect(String(joined.headers['set-cookie'])).toMatch(
      /^gatehouse_session=ghs_[\w-]{43}; Path=\/api\/v1\/auth\/login; Max-Age=\d+; HttpOnly; SameSite=Strict; Secure$/,
    );
  });

  it('e-mails a member’s reset (202, no token in the answer)', async () => {
    const member = await account.addUser('DEVELOPER');
    const res = await t.http.post(`/api/v1/team/members/${member.id}/password-reset`).set(bearer(account.owner.token));
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ token: null, emailed: true, expiresAt: expect.any(String) });
    const mail = await receivedBy(member.email);
    expect(mail.text).toContain('https://gatehouse.example.com/reset-password#token=');
    const accepted = await t.http.post('/api/v1/auth/password-reset/accept').send({ token: tokenIn(mail), newPassword: NEW_PASSWORD });
    expect(accepted.status).toBe(200);
    expect(String(accepted.headers['set-cookie'])).toMatch(
      /^gatehouse_session=ghs_[\w-]{43}; Path=\/api\/v1\/auth\/login; Max-Age=\d+; HttpOnly; SameSite=Strict; Secure$/,
    );
  });

  it('"forgot password" answers the same for unknown and known emails, and only a user gets a link', async () => {
    const member = await account.addUser('ANALYST');
    const unknown = await t.http.post('/api/v1/auth/password-reset/request').send({ email: `nobody-${randomUUID()}@example.com` });
    const known = await t.http.post('/api/v1/auth/password-reset/request').send({ email: member.email.toUpperCase() });
    for (const res of [unknown, known]) {
      expect(res.status).toBe(202);
      expectRateLimitHeaders(res);
    }
    expect(known.body).toEqual(unknown.body);
    const mail = await receivedBy(member.email); // the unknown email's request came first: had it sent anything, it would be here
    expect(inbox.messages.filter((m) => JSON.stringify(m.to).includes('nobody-'))).toEqual([]);
    const reset = await t.http.post('/api/v1/auth/password-reset/accept').send({ token: tokenIn(mail), newPassword: NEW_PASSWORD });
    expect(reset.status).toBe(200);
    expectError(await t.http.get('/api/v1/auth/me').set(bearer(member.token)), 401, 'invalid_token');
  });
});
