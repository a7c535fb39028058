/// <reference lib="dom" />
// Code in page.evaluate runs in the browser.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { DASHBOARD_CSP } from '../../src/dashboard/dashboard-pages';
import {
  axeViolations,
  Dashboard,
  describeInBrowser,
  JWT_IN_URL,
  openDashboard,
  sessionCookieOf,
  signIn,
  startDashboard,
  sessionIdOf,
} from '../utils/dashboard';
import { createAccount, TestAccount } from '../utils/test-app';
import { issueNonce } from '../utils/widget';
import { BOT_MS_PER_CANDIDATE, MAX_COUNTER } from '../../src/widget/pow';

const ARTIFACTS = resolve(__dirname, '../../test-artifacts');

/** The dashboard's sign-in and API keys pages in Chromium, against the real app (docs/DASHBOARD.md). */
describeInBrowser('dashboard: sign-in and API keys, in Chromium', () => {
  let d: Dashboard;
  let account: TestAccount;

  beforeAll(async () => {
    d = await startDashboard();
    account = await createAccount(d.t);
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 120_000);
  afterAll(() => d?.close());

  /** What the API answers for `secret` on a verify-scoped route: a working key gets 200. */
  const verifyWith = async (secret: string) =>
    (await d.t.http.post('/api/v1/nonces/verify').set('X-Api-Key', secret).send({ nonce: 'nothing' })).status;

  const row = (page: Page, name: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });

  it('serves every page path its app under a strict CSP, and keeps the JSON 404 elsewhere', async () => {
    for (const path of ['/', '/keys', '/sign-in', '/reset-password']) {
      const res = await d.t.http.get(path).expect(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.text).toContain('<div id="root">');
      expect(res.text).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    }
    const script = /src="(\/assets\/[^"]+\.js)"/.exec((await d.t.http.get('/').expect(200)).text)![1];
    const asset = await d.t.http.get(script).set('Accept-Encoding', 'br').expect(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-encoding']).toBe('br');
    await d.t.http.get(script).set('If-None-Match', asset.headers['etag']).expect(304);
    expect((await d.t.http.get('/no-such-page').expect(404)).body.error).toBe('not_found');
    expect((await d.t.http.get('/assets/..%2F..%2Fpackage.json').expect(404)).body.error).toBe('not_found');
    expect((await d.t.http.get('/assets/missing-abc123.js').expect(404)).body.error).toBe('not_found');
  });

  it.each([
    [1280, 860],
    [390, 844],
  ])(
    'at %i px: signs in, creates a key whose secret is shown once and works, edits, rotates with a grace period and revokes it',
    async (width, height) => {
      // An account of its own per width: the names and the revoked count below are this run's.
      const account = await createAccount(d.t);
      const openWidget = await account.createKey({ name: 'Open widget', scopes: ['widget'] });
      // Made long ago: its row names that day, not today's.
      const madeAt = new Date('2025-03-14T12:00:00Z');
      await d.t.prisma.apiKey.update({ where: { id: openWidget.id }, data: { createdAt: madeAt } });
      const { context, page, problems, urls } = await openDashboard(d, '/keys', { width, height });
      // Not signed in: the sign-in page, which returns to the keys afterwards.
      await signIn(page, account.owner);
      await page.getByRole('heading', { name: 'API keys' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/keys');
      // A widget key any site may use is flagged in the list.
      await row(page, 'Open widget').getByText('any site').waitFor();
      // And the day it was made, in the browser's locale and time zone.
      const dayOf = (at: Date) =>
        page.evaluate((iso) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' }), at.toISOString());
      await row(page, 'Open widget')
        .getByRole('rowheader')
        .getByText(`created ${await dayOf(madeAt)}`)
        .waitFor();
      // What its proof of work costs: the level in force, no surge, a visitor's solve, a bot's price.
      await issueNonce(d.t, openWidget.key);
      await row(page, 'Open widget').getByRole('button', { name: 'Proof of work of Open widget' }).click();
      const effort = page.getByRole('dialog', { name: 'Proof of work of Open widget' }).getByTestId('widget-effort');
      await effort.getByText('Visitors wait about 0.25 s (median) — this key’s own setting').waitFor();
      await effort.getByText('Off', { exact: true }).waitFor();
      await effort.getByText(/^median [\d.]+ s, 90th percentile [\d.]+ s \(1 solve\)$/).waitFor();
      await effort.getByText(`${Math.round((MAX_COUNTER[250] / 2 + 1) * BOT_MS_PER_CANDIDATE)} CPU-seconds per 1,000 nonces`).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      if (width === 1280) await page.screenshot({ path: `${ARTIFACTS}/dashboard-widget-effort.png` });
      await page.getByRole('button', { name: 'Close' }).click();

      await page.getByRole('button', { name: 'Create key' }).click();
      const create = page.getByRole('dialog', { name: 'Create an API key' });
      await create.getByLabel('Name').fill('Checkout page');
      await create.getByRole('checkbox', { name: /^verify/ }).check();
      // …and on creation, until the key names its sites.
      await create.getByRole('note').getByText('any site can use it').waitFor();
      await create.getByLabel('Allowed origins').fill('https://shop.example.com\nhttps://www.example.com');
      await create.getByRole('note').waitFor({ state: 'detached' });
      // Difficulty in people's terms: the plan's default (the free plan's half a second), or a visitor's wait.
      const difficulty = create.getByLabel('Challenge difficulty');
      expect(await difficulty.locator('option').allTextContents()).toEqual([
        'Plan default (visitor waits ~0.5 s)',
        'Visitor waits ~0.25 s',
        'Visitor waits ~0.5 s',
        'Visitor waits ~1 s',
        'Visitor waits ~2 s',
      ]);
      expect(await difficulty.inputValue()).toBe('');
      await difficulty.selectOption({ label: 'Visitor waits ~1 s' });
      expect(await axeViolations(page)).toEqual([]);
      await create.getByRole('button', { name: 'Create key' }).click();

      const shown = page.getByRole('dialog', { name: 'The secret of Checkout page' });
      const secret = (await shown.getByTestId('secret').textContent())!;
      expect(secret).toMatch(/^gh_/);
      await shown.getByText('cannot show it again').waitFor();
      expect(await verifyWith(secret)).toBe(200);
      // How to use it: the widget's snippet and the server's check, with this Gatehouse and this key.
      await shown.getByText('How to use it').click();
      const snippets = await shown.locator('pre').allTextContents();
      expect(snippets).toEqual([
        `<script src="${d.base}/widget/v1/gatehouse.js" defer></script>\n<div class="gatehouse-widget" data-key="${secret}" data-auto="onfocus"></div>`,
        expect.stringContaining(`curl -s ${d.base}/api/v1/nonces/verify -H 'x-api-key: ${secret}'`),
      ]);
      expect(await axeViolations(page)).toEqual([]);
      await shown.getByRole('button', { name: 'I have stored it' }).click();

      const created = row(page, 'Checkout page');
      await created.waitFor();
      const stored = await d.t.prisma.apiKey.findFirstOrThrow({ where: { accountId: account.id, name: 'Checkout page' } });
      expect(stored).toMatchObject({
        scopes: ['widget', 'verify'],
        allowedOrigins: ['https://shop.example.com', 'https://www.example.com'],
        challengeWaitMs: 1000,
      });
      expect(await created.textContent()).toContain(`${stored.prefix}…`);
      // Its sites, in view (as the flag and the day above) at either width.
      await created.getByRole('cell', { name: 'https://shop.example.com, https://www.example.com' }).waitFor();
      await created
        .getByRole('rowheader')
        .getByText(`created ${await dayOf(stored.createdAt)}`)
        .waitFor();
      expect(await created.getByText('any site').count()).toBe(0);
      expect(secret.startsWith(stored.prefix)).toBe(true);
      expect(await created.textContent()).not.toContain(secret);
      expect(await axeViolations(page)).toEqual([]);

      await created.getByRole('button', { name: 'Edit Checkout page' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit Checkout page' });
      await edit.getByLabel('Name').fill('Checkout');
      expect(await edit.getByLabel('Challenge difficulty').inputValue()).toBe('1000'); // the key's own
      await edit.getByLabel('Challenge difficulty').selectOption({ label: 'Plan default (visitor waits ~0.5 s)' });
      await edit.getByRole('button', { name: 'Save' }).click();
      await edit.waitFor({ state: 'detached' });
      await row(page, 'Checkout').waitFor();
      expect(await d.t.prisma.apiKey.findUniqueOrThrow({ where: { id: stored.id } })).toMatchObject({
        name: 'Checkout',
        challengeWaitMs: null,
      });

      await row(page, 'Checkout').getByRole('button', { name: 'Rotate Checkout' }).click();
      const rotate = page.getByRole('dialog', { name: 'Rotate Checkout' });
      // The safe choice is the default: the old secret keeps working for an hour.
      expect(await rotate.getByLabel('The old secret keeps working for').inputValue()).toBe('3600');
      await rotate.getByRole('button', { name: 'Rotate' }).click();
      const rotated = (await page.getByRole('dialog', { name: 'The secret of Checkout' }).getByTestId('secret').textContent())!;
      expect(rotated).not.toBe(secret);
      expect([await verifyWith(rotated), await verifyWith(secret)]).toEqual([200, 200]); // the old one for its grace hour
      await page.getByRole('button', { name: 'I have stored it' }).click();
      await row(page, 'Checkout').getByText('old secret works until').waitFor();

      await row(page, 'Checkout').getByRole('button', { name: 'Revoke Checkout' }).click();
      const revoke = page.getByRole('dialog', { name: 'Revoke Checkout?' });
      expect(await axeViolations(page)).toEqual([]);
      await revoke.getByRole('button', { name: 'Revoke key' }).click();
      await row(page, 'Checkout').waitFor({ state: 'detached' });
      expect([await verifyWith(rotated), await verifyWith(secret)]).toEqual([401, 401]);
      await page.getByLabel('Show').selectOption({ label: 'revoked keys (1)' });
      await row(page, 'Checkout').getByRole('cell', { name: 'revoked' }).waitFor();
      expect(await row(page, 'Open widget').count()).toBe(0);
      await page.getByLabel('Show').selectOption({ label: 'active keys' });

      // A reload keeps the session (the browser's) and the page.
      await page.reload();
      await row(page, 'Checkout').waitFor({ state: 'detached' });
      await page.getByRole('heading', { name: 'API keys' }).waitFor();

      const { value: cookie } = await sessionCookieOf(context);
      expect(urls.filter((u) => JWT_IN_URL.test(u) || u.includes(cookie) || u.includes(secret) || u.includes(rotated))).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    },
    120_000,
  );

  it('shows allowed origins with their scheme before the key is made, refuses a name in use, and tells keys apart when revoking', async () => {
    const account = await createAccount(d.t);
    const first = await account.createKey({ name: 'Shop', scopes: ['widget'], allowedOrigins: ['https://shop.example.com'] });
    const { context, page, problems } = await openDashboard(d, '/keys');
    await signIn(page, account.owner);
    await row(page, 'Shop').waitFor();

    await page.getByRole('button', { name: 'Create key' }).click();
    const create = page.getByRole('dialog', { name: 'Create an API key' });
    await create.getByLabel('Name').fill('Shop');
    // Without a scheme: http for localhost and IP addresses, https elsewhere — shown as typed, before anything is made.
    await create.getByLabel('Allowed origins').fill('localhost:8081\nshop.example.com, 127.0.0.1:5173');
    expect(await create.getByTestId('will-allow').textContent()).toBe(
      'Will allow: http://localhost:8081, https://shop.example.com, http://127.0.0.1:5173',
    );
    expect(await axeViolations(page)).toEqual([]);
    await create.getByRole('button', { name: 'Create key' }).click();
    // The name is the first active key's: refused, naming it, and nothing made.
    await create
      .getByRole('alert')
      .getByText(`An active key is named "Shop" already (${first.key.slice(0, 11)}…)`)
      .waitFor();
    expect(await d.t.prisma.apiKey.count({ where: { accountId: account.id } })).toBe(1);
    await create.getByLabel('Name').fill('Dev server');
    await create.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('dialog', { name: 'The secret of Dev server' }).getByRole('button', { name: 'I have stored it' }).click();
    expect(await d.t.prisma.apiKey.findFirstOrThrow({ where: { accountId: account.id, name: 'Dev server' } })).toMatchObject({
      allowedOrigins: ['http://localhost:8081', 'https://shop.example.com', 'http://127.0.0.1:5173'],
    });

    // The revoke dialog names the key and shows its prefix.
    await row(page, 'Shop').getByRole('button', { name: 'Revoke Shop' }).click();
    const revoke = page.getByRole('dialog', { name: 'Revoke Shop?' });
    await revoke.getByText(`${first.key.slice(0, 11)}…`).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await revoke.getByRole('button', { name: 'Cancel' }).click();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a wrong password and, after ten failures, the lockout with its wait', async () => {
    const { context, page, problems } = await openDashboard(d, '/sign-in');
    const user = await account.addUser('DEVELOPER');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page
      .getByRole('alert')
      .getByText(/email or password/i)
      .waitFor();
    for (let i = 1; i < 10; i++) {
      await d.t.http.post('/api/v1/auth/login').send({ email: user.email, password: 'wrong' }).expect(401);
    }
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page
      .getByRole('alert')
      .getByText(/Try again in \d+ minutes?\./)
      .waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('sends a person whose token expired to sign-in with a message, then back where they were', async () => {
    const { context, page, problems } = await openDashboard(d, '/sign-in');
    await signIn(page, account.owner);
    await page.goto('/team?from=mail');
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    // The browser's session runs out: a reload finds it over.
    const jti = await sessionIdOf(page);
    await d.t.prisma.session.update({ where: { id: jti }, data: { expiresAt: new Date(Date.now() - 60_000) } });
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByText('Your session expired').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await signIn(page, account.owner);
    await page.waitForURL((url) => url.pathname === '/team' && url.search === '?from=mail');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows an analyst no keys: not in the navigation, and the first page is analytics', async () => {
    const analyst = await account.addUser('ANALYST');
    const { context, page, problems } = await openDashboard(d, '/');
    await signIn(page, analyst);
    await page.waitForURL((url) => url.pathname === '/analytics');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    expect(await nav.getByRole('link').allTextContents()).toEqual([
      'Analytics',
      'Team',
      'Account and plan',
      'Profile',
      'Security',
      'Protect a form: the guide',
      'API reference',
    ]);
    expect(await nav.getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe('/docs');
    await page.goto('/keys');
    await page.getByText('An analyst sees traffic, not keys').waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
