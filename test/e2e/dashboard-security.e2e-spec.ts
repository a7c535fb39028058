/// <reference lib="dom" />
// Code in page.evaluate runs in the browser.
import { randomUUID } from 'node:crypto';
import { generateSync } from 'otplib';
import type { Locator, Page } from 'playwright-core';
import {
  axeViolations,
  Dashboard,
  describeInBrowser,
  openDashboard,
  sessionCookieOf,
  sidewaysScroll,
  signIn,
  startDashboard,
  sessionIdOf,
} from '../utils/dashboard';
import { CacheInvalidation } from '../../src/cache/invalidation.service';
import { eventually } from '../utils/eventually';
import { createAccount, TestAccount, TestUser } from '../utils/test-app';

/** The code an authenticator app shows for `secret`, `ahead` seconds from now (the server takes ±30 s, each step once). */
const codeFor = (secret: string, ahead = 0) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + ahead });

/** /team with the invitation dialog open and an address typed in it: what a lapsed session must not lose. */
async function startInvitation(page: Page, prefix: string): Promise<{ invite: Locator; typed: string }> {
  await page.goto('/team');
  await page.getByRole('button', { name: 'Invite' }).click();
  const invite = page.getByRole('dialog', { name: /Invite/ });
  const typed = `${prefix}-${randomUUID()}@example.com`;
  await invite.getByLabel('Email').fill(typed);
  return { invite, typed };
}

/** Signs in again through the open "Sign in again" dialog, and waits for it to go. */
async function signInAgain(lapsed: Locator, user: TestUser): Promise<void> {
  await lapsed.getByLabel('Password').fill(user.password);
  await lapsed.getByRole('button', { name: 'Sign in', exact: true }).click();
  await lapsed.waitFor({ state: 'detached' });
}

/** Email and password typed, up to the answer: the dashboard, or the second step. */
async function typePassword(page: Page, user: Pick<TestUser, 'email' | 'password'>) {
  await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/**
 * Sign-in protection in the dashboard (docs/DASHBOARD.md, "Security"): the authenticator app set up
 * and used at sign-in, a recovery code, passkeys on Chromium's virtual authenticator, sessions, the
 * warning before the session ends and the sign-in dialog over the page after.
 */
describeInBrowser('dashboard: sign-in protection, in Chromium', () => {
  let d: Dashboard;
  let account: TestAccount;

  beforeAll(async () => {
    d = await startDashboard({}, { host: 'localhost' }); // a passkey's relying party is a domain, never an IP address
    account = await createAccount(d.t);
  }, 120_000);
  afterAll(() => d?.close());

  it('says after a wrong password how many attempts are left', async () => {
    const user = await account.addUser('DEVELOPER');
    const { context, page, problems } = await openDashboard(d, '/sign-in');
    await typePassword(page, { email: user.email, password: 'not the password at all' });
    await page
      .getByRole('alert')
      .getByText(/\d+ more attempts? from here before sign-in pauses for \d+ minutes/)
      .waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('sets up an authenticator app (QR code, key, code, ten recovery codes once), then signs in with a code and with a recovery code', async () => {
    const user = await account.addUser('DEVELOPER');
    const { context, page, problems } = await openDashboard(d, '/sign-in');
    await signIn(page, user);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Security' }).click();
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const dialog = page.getByRole('dialog', { name: 'Set up an authenticator app' });
    const qr = dialog.getByRole('img', { name: 'QR code of the authenticator secret' });
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    const secret = (await dialog.locator('code.secret').textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(await axeViolations(page)).toEqual([]);

    // A wrong code is refused and the dialog stays.
    await dialog.getByLabel('The 6-digit code the app shows now').fill(codeFor(secret, 3600));
    await dialog.getByRole('button', { name: 'Turn on' }).click();
    await dialog.getByRole('alert').waitFor();
    await dialog.getByLabel('The 6-digit code the app shows now').fill(codeFor(secret));
    await dialog.getByRole('button', { name: 'Turn on' }).click();
    const done = page.getByRole('dialog', { name: 'Authenticator app is on' });
    const listed = done.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await listed.first().waitFor(); // allTextContents does not wait for the dialog to show them
    const codes = await listed.allTextContents();
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    await done.getByRole('button', { name: 'Download the codes' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await done.getByRole('button', { name: 'I saved the codes' }).click();
    await page.getByText('10 of 10 recovery codes left').waitFor();
    await page.getByText('Signing in asks for the 6-digit code your app shows').waitFor();

    // Signing in now takes a second step: the code of the next 30 seconds (the one used above is spent).
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await typePassword(page, user);
    await page.getByRole('heading', { name: 'Sign in: second step' }).waitFor();
    const codeField = page.getByLabel('Code from your authenticator app');
    expect(await codeField.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await codeField.getAttribute('inputmode')).toBe('numeric');
    expect(await axeViolations(page)).toEqual([]);
    await codeField.fill('000000' === codeFor(secret, 30) ? '111111' : '000000');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').waitFor();
    await codeField.fill(codeFor(secret, 30));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();

    // A recovery code instead: it works once.
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await typePassword(page, user);
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByLabel('Recovery code').fill(codes[0]);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    await page.goto('/security');
    await page.getByText('9 of 10 recovery codes left').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('makes new recovery codes and turns the app off, each with the password', async () => {
    const user = await account.addUser('ANALYST');
    const started = await d.t.http.post('/api/v1/auth/mfa/totp').set('Authorization', `Bearer ${user.token}`).expect(201);
    await d.t.http
      .post('/api/v1/auth/mfa/totp/confirm')
      .set('Authorization', `Bearer ${user.token}`)
      .send({ code: codeFor(started.body.secret) })
      .expect(200);
    const { context, page, problems } = await openDashboard(d, '/sign-in');
    await typePassword(page, user);
    await page.getByLabel('Code from your authenticator app').fill(codeFor(started.body.secret, 30));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    await page.goto('/security');

    await page.getByRole('button', { name: 'Make new recovery codes' }).click();
    let dialog = page.getByRole('dialog', { name: 'Make new recovery codes?' });
    await dialog.getByLabel('Your password').fill('wrong password, surely');
    await dialog.getByRole('button', { name: 'Make new codes' }).click();
    await dialog.getByRole('alert').waitFor();
    await dialog.getByLabel('Your password').fill(user.password);
    await dialog.getByRole('button', { name: 'Make new codes' }).click();
    dialog = page.getByRole('dialog', { name: 'New recovery codes' });
    await dialog.getByRole('list', { name: 'Recovery codes' }).waitFor();
    expect(await dialog.getByRole('listitem').count()).toBe(10);
    await dialog.getByRole('button', { name: 'I saved the codes' }).click();

    await page.getByRole('button', { name: 'Turn off the authenticator app' }).click();
    dialog = page.getByRole('dialog', { name: 'Turn off the authenticator app?' });
    await dialog.getByLabel('Your password').fill(user.password);
    await dialog.getByRole('button', { name: 'Turn off' }).click();
    await page.getByRole('button', { name: 'Set up an authenticator app' }).waitFor();
    expect((await d.t.http.get('/api/v1/auth/mfa').set('Authorization', `Bearer ${user.token}`).expect(200)).body.totp).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows on the Team page who has a second factor; the owner requires one, and a member without is sent to set one up', async () => {
    const member = await account.addUser('DEVELOPER');
    const started = await d.t.http.post('/api/v1/auth/mfa/totp').set('Authorization', `Bearer ${account.owner.token}`).expect(201);
    await d.t.http
      .post('/api/v1/auth/mfa/totp/confirm')
      .set('Authorization', `Bearer ${account.owner.token}`)
      .send({ code: codeFor(started.body.secret) })
      .expect(200);
    const owner = await openDashboard(d, '/sign-in');
    await typePassword(owner.page, account.owner);
    await owner.page.getByLabel('Code from your authenticator app').fill(codeFor(started.body.secret, 30));
    await owner.page.getByRole('button', { name: 'Continue' }).click();
    await owner.page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    await owner.page.goto('/team');
    const row = (email: string) => owner.page.getByRole('row').filter({ has: owner.page.getByRole('rowheader', { name: email }) });
    await row(account.owner.email).getByText('On').waitFor();
    await row(member.email).getByText('Off').waitFor();
    expect(await axeViolations(owner.page)).toEqual([]);

    await owner.page.goto('/settings');
    await owner.page.getByLabel('Require a second factor for every member').check();
    await owner.page.getByRole('region', { name: 'Sign-in protection' }).getByRole('button', { name: 'Save' }).click();
    await owner.page.getByText('Every member must sign in with a second factor').waitFor();
    expect(await axeViolations(owner.page)).toEqual([]);

    // The member signs in and is taken to the Security page, which says why.
    const { context, page, problems } = await openDashboard(d, '/sign-in');
    await signIn(page, member);
    await page.waitForURL((url) => url.pathname === '/security');
    await page.getByRole('alert').getByText('Your account requires a second factor').waitFor();
    await page.goto('/keys');
    await page.waitForURL((url) => url.pathname === '/security');
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();

    await d.t.prisma.account.update({ where: { id: account.id }, data: { requireMfa: false } });
    expect(owner.problems).toEqual([]);
    await owner.context.close();
  });

  it('warns a minute before the session ends and keeps it with the password, without losing what was typed in an open dialog', async () => {
    const user = await account.addUser('ADMIN');
    const { context, page, problems } = await openDashboard(d, '/sign-in');
    await page.clock.install();
    await signIn(page, user);
    const { invite, typed } = await startInvitation(page, 'kept');

    // 23 h 59 min on: the warning shows inside the open dialog (anything outside it is out of reach).
    await page.clock.fastForward(86_400_000 - 59_000);
    const warning = invite.getByRole('alert').filter({ hasText: 'Your session ends in less than a minute' });
    await warning.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await warning.getByRole('button', { name: 'Stay signed in' }).click();
    const again = page.getByRole('dialog', { name: 'Stay signed in' });
    expect(await again.getByLabel('Email').inputValue()).toBe(user.email);
    await again.getByLabel('Password').fill(user.password);
    expect(await axeViolations(page)).toEqual([]);
    await again.getByRole('button', { name: 'Stay signed in' }).click();
    await again.waitFor({ state: 'detached' });
    await warning.waitFor({ state: 'detached' });
    expect(await invite.getByLabel('Email').inputValue()).toBe(typed);

    // The new token has a day of its own: at the old expiry, nothing happens.
    await page.clock.fastForward(120_000);
    expect(await page.getByRole('alert').count()).toBe(0);

    // Let it run out this time: the dialog over the page, the typed address still there after signing in again.
    await page.clock.fastForward(86_400_000);
    const lapsed = page.getByRole('dialog', { name: 'Sign in again' });
    await lapsed.waitFor();
    expect(page.url()).toMatch(/\/team$/);
    await signInAgain(lapsed, user);
    expect(await invite.getByLabel('Email').inputValue()).toBe(typed);
    await invite.getByRole('button', { name: 'Cancel' }).click();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('keeps the page when the session ends while it is open: the sign-in dialog over it, then the typed invitation goes out', async () => {
    const user = await account.addUser('ADMIN');
    const { context, page, problems } = await openDashboard(d, '/sign-in');
    await signIn(page, user);
    // The session has 4 more seconds on the server: the token the page takes at its next start says so.
    const jti = await sessionIdOf(page);
    await d.t.prisma.session.update({ where: { id: jti }, data: { expiresAt: new Date(Date.now() + 4_000) } });
    const { invite, typed } = await startInvitation(page, 'sent');
    const lapsed = page.getByRole('dialog', { name: 'Sign in again' });
    await lapsed.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await signInAgain(lapsed, user);
    expect(await invite.getByLabel('Email').inputValue()).toBe(typed);
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('dialog', { name: `Invitation for ${typed}` }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('when the server refuses the token and the session is over too, opens the sign-in dialog over the page, and the invitation goes out after it', async () => {
    const user = await account.addUser('ADMIN');
    const { context, page, problems } = await openDashboard(d, '/sign-in');
    await signIn(page, user);
    const { invite, typed } = await startInvitation(page, 'sent');
    // The page still counts a day, but on the server its session has ended by time and its tokens are refused.
    const jti = await sessionIdOf(page);
    const ended = new Date(Date.now() - 1_000);
    await d.t.prisma.session.update({ where: { id: jti }, data: { expiresAt: ended } });
    await d.t.prisma.revokedToken.create({ data: { jti, userId: user.id, expiresAt: new Date(Date.now() + 3_600_000) } });
    d.t.app.get(CacheInvalidation).invalidate('user', user.id);
    const refused = page.waitForResponse((res) => res.url().endsWith('/api/v1/team/invitations') && res.status() === 401);
    const exchanged = page.waitForResponse((res) => res.url().endsWith('/api/v1/auth/login/session') && res.status() === 401);
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await refused;
    expect(await (await exchanged).json()).toMatchObject({ error: 'token_expired' });
    const lapsed = page.getByRole('dialog', { name: 'Sign in again' });
    await lapsed.waitFor();
    expect(page.url()).toMatch(/\/team$/);
    await signInAgain(lapsed, user);
    expect(await invite.getByLabel('Email').inputValue()).toBe(typed);
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('dialog', { name: `Invitation for ${typed}` }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it.each([
    [1280, 860],
    [390, 844],
  ])(
    'at %i px: adds a passkey on a virtual authenticator, signs in with it alone and as the second step, renames and removes it',
    async (width, height) => {
      const user = await account.addUser('DEVELOPER');
      const { context, page, problems } = await openDashboard(d, '/sign-in', { width, height });
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
      });
      await signIn(page, user);
      await page.goto('/security');
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      const add = page.getByRole('dialog', { name: 'Add a passkey' });
      await add.getByLabel('Name').fill('Test laptop');
      expect(await axeViolations(page)).toEqual([]);
      expect(await sidewaysScroll(page)).toEqual([]);
      await add.getByRole('button', { name: 'Add passkey' }).click();
      await add.waitFor({ state: 'detached' });
      const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Test laptop' }) });
      await row.waitFor();
      await row.getByText('never').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      expect(await sidewaysScroll(page)).toEqual([]);

      // Passwordless: the passkey alone.
      await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();

      // As the second step after the password.
      await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
      await typePassword(page, user);
      await page.getByRole('heading', { name: 'Sign in: second step' }).waitFor();
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();

      await page.goto('/security');
      await row.getByRole('button', { name: 'Rename Test laptop' }).click();
      const rename = page.getByRole('dialog', { name: 'Rename Test laptop' });
      await rename.getByLabel('Name').fill('Work laptop');
      expect(await axeViolations(page)).toEqual([]);
      expect(await sidewaysScroll(page)).toEqual([]);
      await rename.getByRole('button', { name: 'Rename' }).click();
      const renamed = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Work laptop' }) });
      await renamed.getByRole('button', { name: 'Remove Work laptop' }).click();
      const remove = page.getByRole('dialog', { name: 'Remove Work laptop?' });
      await remove.getByLabel('Your password').fill(user.password);
      expect(await axeViolations(page)).toEqual([]);
      expect(await sidewaysScroll(page)).toEqual([]);
      await remove.getByRole('button', { name: 'Remove passkey' }).click();
      await page.getByText('No passkeys yet.').waitFor();
      expect(problems).toEqual([]);
      await context.close();
    },
  );

  it('is one session per browser: a new tab opens a deep link signed in, the Security page lists one row, a sign-out in one tab signs out all', async () => {
    const user = await account.addUser('DEVELOPER');
    const first = await openDashboard(d, '/sign-in');
    let firstToken = '';
    first.page.on('request', (req) => {
      const bearer = /^Bearer (\S+)$/.exec(req.headers()['authorization'] ?? '');
      if (bearer) firstToken = bearer[1];
    });
    await signIn(first.page, user);
    const cookie = await sessionCookieOf(first.context);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/v1/auth/login', secure: false });

    const second = await first.context.newPage();
    await second.clock.install();
    const exchanges: string[] = [];
    second.on('request', (req) => void (req.url().endsWith('/api/v1/auth/login/session') && exchanges.push(req.url())));
    await second.goto('/analytics');
    await second.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
    expect(new URL(second.url()).pathname).toBe('/analytics');
    expect(await second.evaluate(() => document.cookie)).not.toContain(cookie.value);
    expect(await second.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))).not.toMatch(
      /eyJ|ghs_/,
    );
    // Its token renews itself before it runs out (5 minutes).
    expect(exchanges).toHaveLength(1);
    await second.clock.fastForward(250_000);
    await eventually(() => exchanges.length === 2);

    await second.goto('/security');
    const table = second.getByRole('region', { name: 'Your sessions' });
    await table.getByText('This device').waitFor();
    expect(await table.getByRole('row').count()).toBe(2); // a header row and this browser's session
    expect(await d.t.prisma.session.count({ where: { userId: user.id } })).toBe(1);

    await second.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await second.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    await first.page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    await first.page.getByText('You are signed out.').waitFor();
    expect(firstToken).not.toBe('');
    expect((await d.t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${firstToken}`)).status).toBe(401);
    // And a new tab now asks to sign in.
    const third = await first.context.newPage();
    await third.goto('/keys');
    await third.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    expect(first.problems).toEqual([]);
    await first.context.close();
  });

  it('with an authenticator app, the code is asked once per browser: a second tab opens signed in', async () => {
    const user = await account.addUser('ANALYST');
    const bearer = { Authorization: `Bearer ${user.token}` };
    const { secret } = (await d.t.http.post('/api/v1/auth/mfa/totp').set(bearer).expect(201)).body as { secret: string };
    await d.t.http
      .post('/api/v1/auth/mfa/totp/confirm')
      .set(bearer)
      .send({ code: codeFor(secret) })
      .expect(200);
    const { context, page, problems } = await openDashboard(d, '/sign-in');
    await typePassword(page, user);
    await page.getByLabel('Code from your authenticator app').fill(codeFor(secret, 30));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    const second = await context.newPage();
    await second.goto('/analytics');
    await second.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
    expect(await second.getByLabel('Code from your authenticator app').count()).toBe(0);
    await second.goto('/security');
    await second.getByRole('region', { name: 'Your sessions' }).getByText('This device').waitFor();
    expect(await second.getByRole('region', { name: 'Your sessions' }).getByRole('row').count()).toBe(2);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lists where one is signed in, marks this device, and signs another session out', async () => {
    const user = await account.addUser('DEVELOPER');
    const other = await openDashboard(d, '/sign-in');
    await signIn(other.page, user);
    const { context, page, problems } = await openDashboard(d, '/sign-in');
    await signIn(page, user);
    await page.goto('/security');
    const table = page.getByRole('region', { name: 'Your sessions' });
    await table.getByText('This device').waitFor();
    await table.getByRole('row').nth(2).waitFor(); // a header row and two sessions
    expect(await axeViolations(page)).toEqual([]);
    const others = table
      .getByRole('row')
      .filter({ hasNot: page.getByText('This device') })
      .getByRole('button', { name: /^Sign out / });
    await others.first().click();
    const dialog = page.getByRole('dialog', { name: 'Sign out this session?' });
    await dialog.getByRole('button', { name: 'Sign out' }).click();
    await dialog.waitFor({ state: 'detached' });
    await eventually(async () => (await table.getByRole('row').count()) === 2); // the list is read again
    // The other browser is out at its next request.
    await other.page.goto('/keys');
    await other.page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
    await other.context.close();
  });
});
