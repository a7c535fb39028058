import { randomUUID } from 'node:crypto';
import { expectError, expectRateLimitHeaders, startApp, TestApp } from '../utils/test-app';
import { altchaPayload, solve, solvedAltcha } from '../utils/widget';
import { eventually } from '../utils/eventually';
import { Inbox, startInbox, tokenIn } from '../utils/smtp';

const PASSWORD = 'a long founder passphrase';

describe('sign-up', () => {
  describe('closed (the default)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp();
    }, 60_000);
    afterAll(() => t.close());

    it('answers 404 on both routes, before reading the body', async () => {
      expectError(await t.http.get('/api/v1/auth/signup/challenge'), 404, 'not_found');
      const res = await t.http.post('/api/v1/auth/signup').send({ nonsense: true });
      expectError(res, 404, 'not_found');
      expectRateLimitHeaders(res);
    });
  });

  describe('open (SIGNUP=open)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp({ SIGNUP: 'open', TRUST_PROXY: '127.0.0.1,::1,::ffff:127.0.0.1' });
    }, 60_000);
    afterAll(() => t.close());

    /** What the sign-up page does: a challenge solved (the default difficulty, as a browser would). */
    const solved = async (visitor = `198.51.100.${Math.floor(Math.random() * 200) + 1}`) => {
      const res = await t.http.get('/api/v1/auth/signup/challenge').set('X-Forwarded-For', visitor).expect(200);
      expect(res.body.parameters.data).toMatchObject({ purpose: 'signup' });
      return altchaPayload(res.body, solve(res.body));
    };
    const signup = (body: Record<string, unknown>) => t.http.post('/api/v1/auth/signup').send(body);
    const freshEmail = () => `founder-${randomUUID()}@example.com`;

    it('creates an account on the free plan and its OWNER, who then signs in', async () => {
      const email = freshEmail();
      const res = await signup({ email, password: PASSWORD, accountName: 'Acme', altcha: await solved() });
      expect(res.status).toBe(202);
      expectRateLimitHeaders(res);
      expect(res.body).toEqual({ status: 'accepted' });
      const login = await t.http.post('/api/v1/auth/login').send({ email, password: PASSWORD }).expect(200);
      const me = await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${login.body.token}`).expect(200);
      expect(me.body).toMatchObject({ email, role: 'OWNER', account: { name: 'Acme' }, plan: { id: 'free' } });
      const audit = await t.http
        .get('/api/v1/audit-log')
        .query({ action: 'account.created' })
        .set('Authorization', `Bearer ${login.body.token}`);
      expect(audit.body.data).toHaveLength(1);
    });

    it('answers the same whether or not the email is taken, and changes nothing for a taken one', async () => {
      const email = freshEmail();
      const first = await signup({ email, password: PASSWORD, accountName: 'First', altcha: await solved() });
      const again = await signup({
        email: email.toUpperCase(),
        password: 'another long passphrase',
        accountName: 'Second',
        altcha: await solved(),
      });
      expect({ status: again.status, body: again.body }).toEqual({ status: first.status, body: first.body });
      expect(await t.prisma.account.count({ where: { name: 'Second' } })).toBe(0);
      await t.http.post('/api/v1/auth/login').send({ email, password: PASSWORD }).expect(200);
    });

    it('makes exactly one account of duplicate sign-ups racing on one email', async () => {
      const email = freshEmail();
      const solutions = await Promise.all(Array.from({ length: 5 }, () => solved()));
      const answers = await Promise.all(
        solutions.map((altcha, i) => signup({ email, password: PASSWORD, accountName: `Racer ${i}`, altcha })),
      );
      expect(answers.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
      expect(await t.prisma.user.count({ where: { email } })).toBe(1);
      expect(await t.prisma.account.count({ where: { name: { startsWith: 'Racer ' } } })).toBe(1);
    });

    it('needs a solved challenge, once: none, a wrong one, a widget key’s one or a reused one is refused and creates nothing', async () => {
      const { createAccount } = await import('../utils/test-app');
      const widgetKey = (await (await createAccount(t)).createKey({ scopes: ['widget'] })).key;
      const email = freshEmail();
      const body = { email, password: PASSWORD, accountName: 'Bot Inc.' };
      expectError(await signup(body), 400, 'validation_failed');
      expectError(await signup({ ...body, altcha: 'not a solution' }), 422, 'challenge_failed');
      expectError(await signup({ ...body, altcha: await solvedAltcha(t, widgetKey) }), 422, 'challenge_failed');
      const altcha = await solved();
      expect((await signup({ ...body, email: freshEmail(), altcha })).status).toBe(202);
      expectError(await signup({ ...body, altcha }), 422, 'challenge_failed'); // reused
      expect(await t.prisma.user.count({ where: { email } })).toBe(0);
    });

    it('refuses bad input with 400 and creates nothing', async () => {
      const altcha = await solved();
      for (const bad of [
        { email: 'not an email', password: PASSWORD, accountName: 'X', altcha },
        { email: freshEmail(), password: 'short', accountName: 'X', altcha },
        { email: freshEmail(), password: PASSWORD, accountName: '', altcha },
      ]) {
        expectError(await signup(bad), 400, 'validation_failed');
      }
    });
  });

  describe('open, with e-mail (SMTP_URL): the address is confirmed before the first sign-in', () => {
    let inbox: Inbox;
    let t: TestApp;
    beforeAll(async () => {
      inbox = await startInbox();
      t = await startApp({ SIGNUP: 'open', SMTP_URL: inbox.url, PUBLIC_URL: 'https://gatehouse.example.com' });
    }, 60_000);
    afterAll(async () => {
      await t.close();
      await inbox.close();
    });

    const solved = async () => {
      const res = await t.http.get('/api/v1/auth/signup/challenge').expect(200);
      return altchaPayload(res.body, solve(res.body));
    };
    const mailTo = async (to: string, subject: RegExp) => {
      await eventually(() =>
        expect(inbox.messages.some((m) => JSON.stringify(m.to).includes(to) && subject.test(m.subject ?? ''))).toBe(true),
      );
      return inbox.messages.find((m) => JSON.stringify(m.to).includes(to) && subject.test(m.subject ?? ''))!;
    };
    const login = (email: string, password = PASSWORD) => t.http.post('/api/v1/auth/login').send({ email, password });

    it('e-mails a confirmation link; sign-in waits for it; the link signs in once', async () => {
      const email = `confirming-${randomUUID()}@example.com`;
      const res = await t.http
        .post('/api/v1/auth/signup')
        .send({ email, password: PASSWORD, accountName: 'Mailed', altcha: await solved() });
      expect(res.status).toBe(202);
      const mail = await mailTo(email, /Confirm/);
      expect(mail.text).toContain('https://gatehouse.example.com/confirm-email#token=');
      expectError(await login(email), 401, 'invalid_credentials');
      const confirmed = await t.http.post('/api/v1/auth/signup/confirm').send({ token: tokenIn(mail) });
      expect(confirmed.status).toBe(200);
      expect(String(confirmed.headers['set-cookie'])).toMatch(/^gatehouse_session=ghs_[\w-]{43}; Path=\/api\/v1\/auth\/login; .*; Secure$/);
      await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${confirmed.body.token}`).expect(200);
      const sessions = await t.http.get('/api/v1/auth/sessions').set('Authorization', `Bearer ${confirmed.body.token}`).expect(200);
      expect(sessions.body.data).toEqual([expect.objectContaining({ method: 'signup', current: true })]);
      expectError(await t.http.post('/api/v1/auth/signup/confirm').send({ token: tokenIn(mail) }), 401, 'invalid_credentials');
      expect((await login(email)).status).toBe(200);
      const forged = tokenIn(mail).replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
      expectError(await t.http.post('/api/v1/auth/signup/confirm').send({ token: forged }), 401, 'invalid_credentials');
    });

    it('lets the owner of an address someone else signed up with (and never confirmed) take it back by "forgot password"', async () => {
      const email = `squatted-${randomUUID()}@example.com`;
      await t.http
        .post('/api/v1/auth/signup')
        .send({ email, password: 'the squatter passphrase', accountName: 'Squat', altcha: await solved() })
        .expect(202);
      await t.http.post('/api/v1/auth/password-reset/request').send({ email }).expect(202);
      const reset = await mailTo(email, /Reset/);
      const accepted = await t.http.post('/api/v1/auth/password-reset/accept').send({ token: tokenIn(reset), newPassword: PASSWORD });
      expect(accepted.status).toBe(200);
      expect((await login(email)).status).toBe(200);
      expectError(await login(email, 'the squatter passphrase'), 401, 'invalid_credentials');
    });

    it('deletes a sign-up never confirmed a week on, and nothing else', async () => {
      const email = `abandoned-${randomUUID()}@example.com`;
      await t.http
        .post('/api/v1/auth/signup')
        .send({ email, password: PASSWORD, accountName: 'Abandoned', altcha: await solved() })
        .expect(202);
      const user = await t.prisma.user.findUniqueOrThrow({ where: { email } });
      const others = await t.prisma.account.count();
      const { SignupService } = await import('../../src/accounts/signup.service');
      const signup = t.app.get(SignupService);
      expect(await signup.purgeUnconfirmed(Date.now() + 6 * 24 * 3600_000)).toBe(0);
      expect(await signup.purgeUnconfirmed(Date.now() + 8 * 24 * 3600_000)).toBe(1);
      expect(await t.prisma.account.count({ where: { id: user.accountId } })).toBe(0);
      expect(await t.prisma.account.count()).toBe(others - 1);
    });

    it('tells the holder of a taken address by e-mail, and the one who signed up nothing', async () => {
      const email = `taken-${randomUUID()}@example.com`;
      await t.http
        .post('/api/v1/auth/signup')
        .send({ email, password: PASSWORD, accountName: 'Original', altcha: await solved() })
        .expect(202);
      const again = await t.http
        .post('/api/v1/auth/signup')
        .send({ email, password: 'another long passphrase', accountName: 'Copy', altcha: await solved() });
      expect(again.status).toBe(202);
      expect(again.body).toEqual({ status: 'accepted' });
      const notice = await mailTo(email, /tried to sign up/);
      expect(notice.text).not.toMatch(/#token=/);
      expect(await t.prisma.account.count({ where: { name: 'Copy' } })).toBe(0);
    });
  });
});
