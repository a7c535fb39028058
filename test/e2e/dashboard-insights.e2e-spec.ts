/// <reference lib="dom" />
// Code in page.evaluate runs in the browser.
import type { Locator, Page } from 'playwright-core';
import {
  axeViolations,
  Dashboard,
  describeInBrowser,
  DESKTOP,
  openDashboard,
  sidewaysScroll,
  signIn,
  startDashboard,
  tokenOf,
} from '../utils/dashboard';
import { createAccount, TestAccount, TestUser } from '../utils/test-app';
import { issueNonce, solvedAltcha } from '../utils/widget';

const SHOP = 'https://shop.example.com';
const PHONE = { width: 390, height: 844 };

/** The dashboard's analytics, account and profile pages in Chromium, against the real app (the audit log: dashboard-audit.e2e-spec.ts). */
describeInBrowser('dashboard: analytics, account and profile, in Chromium', () => {
  let d: Dashboard;

  beforeAll(async () => {
    d = await startDashboard();
  }, 120_000);
  afterAll(() => d?.close());

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  /** The row of `name` in a table of the page or of a part of it. */
  const row = (scope: Page | Locator, name: string | RegExp) => {
    const page = 'context' in scope ? scope : scope.page();
    return scope.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });
  };
  const me = async (token: string) => (await d.t.http.get('/api/v1/auth/me').set(bearer(token))).status;
  const login = async (email: string, password: string) => (await d.t.http.post('/api/v1/auth/login').send({ email, password })).status;

  describe('analytics', () => {
    let account: TestAccount;
    let key: { id: string; key: string };
    /** An account whose nonces live 30 s (the least), with one nonce issued at the start, to verify once it has expired. */
    let shortLived: { account: TestAccount; key: { id: string; key: string }; nonce: { nonce: string; expiresAt: string } };

    beforeAll(async () => {
      const short = await createAccount(d.t);
      await d.t.http.patch('/api/v1/account').set(bearer(short.owner.token)).send({ nonceTtlSeconds: 30 }).expect(200);
      const shortKey = await short.createKey({ name: 'Shop', scopes: ['widget', 'verify'], allowedOrigins: [SHOP] });
      shortLived = { account: short, key: shortKey, nonce: await issueNonce(d.t, shortKey.key, SHOP) };

      account = await createAccount(d.t);
      key = await account.createKey({ name: 'Checkout widget', scopes: ['widget', 'verify', 'public'] });
      const other = await account.createKey({ name: 'Server only', scopes: ['verify'] });
      for (let i = 0; i < 3; i++) await d.t.http.get('/api/v1/public/ping').set('X-Api-Key', key.key).expect(200);
      for (let i = 0; i < 2; i++) await d.t.http.get('/api/v1/public/ping').set('X-Api-Key', other.key).expect(403); // no public scope
      const { nonce } = await issueNonce(d.t, key.key);
      const verified = await d.t.http.post('/api/v1/nonces/verify').set('X-Api-Key', key.key).send({ nonce }).expect(200);
      expect(verified.body.valid).toBe(true);
    });

    it('shows requests by status class, by endpoint and by key name, and the widget figures, as the server counts them', async () => {
      const { context, page, problems } = await openDashboard(d, '/analytics');
      await signIn(page, account.owner);
      await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
      const totals = page.getByTestId('request-totals');
      await totals.waitFor();
      expect(await totals.textContent()).toMatch(/· 4xx: 2(?!\d)/);
      expect(await totals.textContent()).toMatch(/· 5xx: 0(?!\d)/);
      // The keys' requests: 3 pings, a challenge, a nonce and a verification.
      expect(await totals.textContent()).toMatch(/· 2xx: 6(?!\d)/);
      // With this dashboard's own calls (sign-in, these reports): more successes, the same refusals.
      await page.getByLabel("All, this dashboard's included").check();
      await totals.filter({ hasNotText: /· 2xx: 6(?!\d)/ }).waitFor();
      expect(Number(/· 2xx: (\d+)/.exec((await totals.textContent())!)![1])).toBeGreaterThan(6);
      expect(await totals.textContent()).toMatch(/· 4xx: 2(?!\d)/);
      // The chart is drawn (uPlot's canvas), and its numbers are in the table behind "Show as table".
      const requests = page.getByRole('region', { name: 'Requests by status' });
      await requests.locator('canvas').first().waitFor();
      await requests.getByText('Show as table').click();
      const perMinute = requests.getByRole('table', { name: 'Requests per minute by status class' });
      expect(await perMinute.getByRole('row').count()).toBe(61); // a header and 60 minutes
      const cells = await perMinute.locator('tbody td:nth-child(4)').allTextContents(); // 4xx
      expect(cells.reduce((n, c) => n + Number(c), 0)).toBe(2);

      const endpoints = page.getByRole('region', { name: 'By endpoint' });
      expect(await row(endpoints, 'GET /api/v1/public/ping').getByRole('cell').first().textContent()).toBe('5');

      // The key's name (from the key list), with the count the server holds.
      const byKey = page.getByRole('region', { name: 'By API key' });
      const held = await d.t.http.get('/api/v1/analytics/usage').query({ groupBy: 'apiKey' }).set(bearer(account.owner.token)).expect(200);
      const counts = Object.fromEntries(held.body.data.map((r: { key: string; count: number }) => [r.key, r.count]));
      expect(counts[key.id]).toBe(3 + 2 /* challenge, nonce */ + 1 /* verify */);
      const checkout = row(byKey, /Checkout widget/);
      expect(await checkout.getByRole('cell').first().textContent()).toBe(String(counts[key.id]));
      expect(
        await row(byKey, /Server only/)
          .getByRole('cell')
          .first()
          .textContent(),
      ).toBe('2');

      const widget = page.getByRole('region', { name: 'Widget' });
      const figures = widget.getByTestId('widget-totals');
      expect(await figures.textContent()).toContain('Challenges issued1');
      expect(await figures.textContent()).toContain('Challenges solved1');
      expect(await figures.textContent()).toContain('Nonces valid1');
      expect(await figures.textContent()).toContain('Nonces invalid0');
      // One chart for the challenges, one for the nonces, each with its table.
      await widget
        .getByRole('figure', { name: /^Challenges per minute/ })
        .locator('canvas')
        .waitFor();
      await widget
        .getByRole('figure', { name: /^Nonces checked per minute/ })
        .locator('canvas')
        .waitFor();
      for (const more of await widget.getByText('Show as table').all()) await more.click();
      const nonces = widget.getByRole('table', { name: 'Nonces checked per minute' });
      expect((await nonces.locator('tbody td:nth-child(2)').allTextContents()).reduce((n, c) => n + Number(c), 0)).toBe(1); // valid
      expect(await axeViolations(page)).toEqual([]);

      // Another period: day buckets.
      await page.getByLabel('Last 7 days').check();
      await requests.getByRole('table', { name: 'Requests per day by status class' }).waitFor({ state: 'attached' });
      expect(await requests.getByRole('table', { name: 'Requests per day by status class' }).getByRole('row').count()).toBe(8);
      expect(await totals.textContent()).toMatch(/· 4xx: 2(?!\d)/);
      expect(await axeViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });

    it('shows an analyst key ids instead of names, without an error', async () => {
      const analyst = await account.addUser('ANALYST');
      const { context, page, problems, urls } = await openDashboard(d, '/analytics');
      await signIn(page, analyst);
      const byKey = page.getByRole('region', { name: 'By API key' });
      await row(byKey, key.id).waitFor();
      expect(await byKey.textContent()).not.toContain('Checkout widget');
      await byKey.getByText('an analyst sees each key').waitFor();
      await page.getByTestId('widget-totals').waitFor();
      expect(await page.getByRole('alert').count()).toBe(0);
      expect(urls.filter((u) => u.includes('/api/v1/api-keys'))).toEqual([]);
      expect(await axeViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });

    it('says so when a period has no widget activity or key traffic', async () => {
      const fresh = await createAccount(d.t);
      const { context, page, problems } = await openDashboard(d, '/analytics');
      await signIn(page, fresh.owner);
      await page.getByText('No API-key requests in this period.').waitFor();
      await page.getByText('No widget activity in this period.').waitFor();
      expect(problems).toEqual([]);
      await context.close();
    });

    it('splits failed challenges and invalid nonces by reason, readable at 1280 and 390 px', async () => {
      const { account: short, key: shop, nonce: expiring } = shortLived;
      const verify = async (nonce: string) =>
        (await d.t.http.post('/api/v1/nonces/verify').set('X-Api-Key', shop.key).send({ nonce }).expect(200)).body as { reason?: string };
      // As a customer's server meets them: a replay, a made-up nonce, one verified too late; and a page of another site.
      const { nonce } = await issueNonce(d.t, shop.key, SHOP);
      expect([await verify(nonce), await verify(nonce), await verify('ghn_made-up')]).toEqual([
        expect.objectContaining({ valid: true }),
        { valid: false, reason: 'already_used' },
        { valid: false, reason: 'unknown' },
      ]);
      const refused = await d.t.http
        .get('/api/v1/widget/challenge')
        .set('X-Api-Key', shop.key)
        .set('Origin', 'https://elsewhere.example.com');
      expect(refused.status).toBe(403);
      // A form sent twice (its solution again) and a made-up solution.
      const exchange = (altcha: string) =>
        d.t.http.post('/api/v1/widget/nonces').set('X-Api-Key', shop.key).set('Origin', SHOP).send({ altcha });
      const altcha = await solvedAltcha(d.t, shop.key, SHOP);
      expect([(await exchange(altcha)).status, (await exchange(altcha)).status, (await exchange('bm90IGEgc29sdXRpb24=')).status]).toEqual([
        201, 422, 422,
      ]);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, new Date(expiring.expiresAt).getTime() + 1_000 - Date.now())));
      expect(await verify(expiring.nonce)).toEqual({ valid: false, reason: 'expired' });

      const held = await d.t.http.get('/api/v1/analytics/widget').query({ groupBy: 'apiKey' }).set(bearer(short.owner.token)).expect(200);
      expect(held.body.data).toEqual([
        {
          key: shop.id,
          challengesIssued: 3,
          challengesSolved: 3,
          challengesFailed: 3,
          challengesFailedInvalid: 1,
          challengesFailedExpired: 0,
          challengesFailedAlreadyUsed: 1,
          challengesFailedOrigin: 1,
          noncesValid: 1,
          noncesInvalid: 3,
          noncesUnknown: 1,
          noncesExpired: 1,
          noncesAlreadyUsed: 1,
        },
      ]);

      for (const viewport of [DESKTOP, PHONE]) {
        const { context, page, problems } = await openDashboard(d, '/analytics', viewport);
        await signIn(page, short.owner);
        const figures = page.getByTestId('widget-totals');
        await figures.waitFor();
        expect(await figures.textContent()).toContain('Challenges failed3');
        expect(await figures.textContent()).toContain('Nonces invalid3');
        const failures = page.getByRole('list', { name: 'Challenges failed by reason' });
        expect((await failures.getByRole('listitem').allTextContents()).map((t) => t.replace(/\s+/g, ' '))).toEqual([
          'Wrong or forged 1',
          'Expired 0',
          'Already used 1',
          'Page not allowed 1',
        ]);
        const reasons = page.getByRole('list', { name: 'Nonces invalid by reason' });
        expect((await reasons.getByRole('listitem').allTextContents()).map((t) => t.replace(/\s+/g, ' '))).toEqual([
          'Unknown 1',
          'Expired 1',
          'Already used 1',
        ]);
        // Beneath its figure, inside its box, nothing cut off or scrolling sideways.
        for (const parts of [failures, reasons]) {
          const box = (await page.locator('dl.figures > div', { has: parts }).boundingBox())!;
          const list = (await parts.boundingBox())!;
          expect(list.x >= box.x && list.x + list.width <= box.x + box.width && list.y > box.y).toBe(true);
          expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
        }
        expect(await sidewaysScroll(page)).toEqual([]);
        await page.getByText('already used when verified before').waitFor();
        await page.getByText('page not allowed when a page outside').waitFor();
        expect(await axeViolations(page)).toEqual([]);
        expect(problems).toEqual([]);
        await context.close();
      }
    }, 60_000);
  });

  describe('account and plan', () => {
    it('renames the account, sets the nonce lifetime and changes the plan as the owner', async () => {
      const account = await createAccount(d.t);
      const { context, page, problems } = await openDashboard(d, '/settings');
      await signIn(page, account.owner);
      await page.getByRole('heading', { name: 'Account and plan' }).waitFor();
      const name = `Renamed ${Date.now()}`;
      await page.getByLabel('Account name').fill(name);
      await page.getByLabel('Nonce lifetime (seconds)').fill('600');
      expect(await axeViolations(page)).toEqual([]);
      await page.getByRole('region', { name: 'Account', exact: true }).getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();
      expect(await d.t.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).toMatchObject({ name, nonceTtlSeconds: 600 });
      await page.getByRole('banner').getByText(name).waitFor(); // the header follows

      const plans = page.getByRole('region', { name: 'Plan' });
      expect(await plans.locator('[aria-current="true"] h3').textContent()).toContain('Free');
      // The plan's default difficulty, as a visitor's wait.
      expect(await plans.locator('[aria-current="true"] dt:text-is("Default widget difficulty") + dd').textContent()).toBe(
        'Visitor waits ~0.5 s',
      );
      await plans.getByRole('button', { name: 'Switch to Pro' }).click();
      const dialog = page.getByRole('dialog', { name: 'Switch to Pro?' });
      await dialog.getByText('600 requests a minute').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Change plan' }).click();
      await dialog.waitFor({ state: 'detached' });
      await plans.locator('[aria-current="true"] h3', { hasText: 'Pro' }).waitFor();
      expect((await d.t.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).planId).toBe('pro');
      expect(problems).toEqual([]);
      await context.close();
    });

    it('lets an admin edit the account but not the plan or its deletion, and shows an analyst the settings read-only', async () => {
      const account = await createAccount(d.t);
      const admin = await account.addUser('ADMIN');
      const { context, page, problems } = await openDashboard(d, '/settings');
      await signIn(page, admin);
      await page.getByText('Only the owner changes the plan.').waitFor();
      await page.getByText('Only the owner deletes the account.').waitFor();
      await page.locator('li.plan').nth(2).waitFor();
      expect(await page.getByRole('button', { name: /^Switch to/ }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /Delete account/ }).count()).toBe(0);
      await page.getByLabel('Nonce lifetime (seconds)').fill('120');
      await page.getByRole('region', { name: 'Account', exact: true }).getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();
      expect((await d.t.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).nonceTtlSeconds).toBe(120);
      expect(await axeViolations(page)).toEqual([]);
      await context.close();

      const analyst = await account.addUser('ANALYST');
      const view = await openDashboard(d, '/settings');
      await signIn(view.page, analyst);
      await view.page.getByText('Only the owner and the admins change these.').waitFor();
      expect(await view.page.getByRole('textbox').count()).toBe(0);
      expect(await view.page.getByText('120 seconds').count()).toBe(1);
      expect(await axeViolations(view.page)).toEqual([]);
      expect([...problems, ...view.problems]).toEqual([]);
      await view.context.close();
    });

    it('deletes the account once its name is typed: signed out, the account gone, the token dead', async () => {
      const account = await createAccount(d.t);
      const { name } = await d.t.prisma.account.findUniqueOrThrow({ where: { id: account.id } });
      const { context, page, problems } = await openDashboard(d, '/settings');
      await signIn(page, account.owner);
      const token = await tokenOf(page);
      await page.getByRole('button', { name: 'Delete account…' }).click();
      const dialog = page.getByRole('dialog', { name: `Delete ${name}?` });
      const confirm = dialog.getByRole('button', { name: 'Delete account for good' });
      expect(await confirm.isDisabled()).toBe(true);
      await dialog.getByLabel('Type the account name to confirm').fill(name.toLowerCase());
      expect(await confirm.isDisabled()).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await dialog.getByLabel('Type the account name to confirm').fill(name);
      await confirm.click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByText('You are signed out.').waitFor();
      expect(await d.t.prisma.account.findUnique({ where: { id: account.id } })).toBeNull();
      expect(await me(token)).toBe(401);
      expect(await login(account.owner.email, account.owner.password)).toBe(401);
      expect(problems).toEqual([]);
      await context.close();
    });
  });

  describe('profile', () => {
    let user: TestUser;
    beforeAll(async () => {
      user = await (await createAccount(d.t)).addUser('DEVELOPER');
    });

    it('shows who is signed in, changes the password (other sessions end, this one goes on) and signs out', async () => {
      const elsewhere = user.token; // another session of the same person
      const { context, page, problems } = await openDashboard(d, '/profile');
      await signIn(page, user);
      const who = page.getByRole('region', { name: 'You', exact: true });
      await who.getByText(user.email).waitFor();
      await who.getByText('DEVELOPER', { exact: true }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      const before = await tokenOf(page);

      const next = 'a brand new passphrase here';
      await page.getByLabel('Current password').fill(user.password);
      await page.getByLabel('New password', { exact: true }).fill(next);
      await page.getByLabel('Repeat the new password').fill(`${next}!`);
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByRole('alert').getByText('The two passwords differ').waitFor();

      await page.getByLabel('Current password').fill('not my password');
      await page.getByLabel('Repeat the new password').fill(next);
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByRole('alert').getByText('The current password is wrong.').waitFor();
      expect(await login(user.email, next)).toBe(401);

      await page.getByLabel('Current password').fill(user.password);
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByText('Password changed. Your other sessions are signed out.').waitFor();
      expect(await page.getByLabel('Current password').inputValue()).toBe('');
      const after = await tokenOf(page);
      expect(after).not.toBe(before);
      expect([await me(before), await me(elsewhere), await me(after)]).toEqual([401, 401, 200]);
      expect(await login(user.email, user.password)).toBe(401);

      // This tab goes on with the new token.
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Analytics' }).click();
      // An answer (this account's keys made no requests), not the sign-in page a refused token would bring.
      await page.getByRole('region', { name: 'Requests by status' }).getByText('No requests in this period.').waitFor();
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Profile' }).click();

      await page.getByRole('button', { name: 'Sign out of this browser' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByText('You are signed out.').waitFor();
      expect(await me(after)).toBe(401);
      expect(await login(user.email, next)).toBe(200);
      expect(problems).toEqual([]);
      await context.close();
    });
  });
});
