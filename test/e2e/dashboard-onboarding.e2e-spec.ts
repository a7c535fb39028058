/// <reference lib="dom" />
// Code in page.evaluate runs in the browser.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { axeViolations, Dashboard, describeInBrowser, openDashboard, sidewaysScroll, signIn, startDashboard } from '../utils/dashboard';
import { eventually } from '../utils/eventually';
import { createAccount } from '../utils/test-app';
import { buildWidget } from '../utils/widget-build';

/** The keys page's "Protect your first form", a widget key's snippet in its row, and the guide (docs/DASHBOARD.md). */
describeInBrowser('dashboard: protect your first form, in Chromium', () => {
  let d: Dashboard;

  beforeAll(async () => {
    buildWidget();
    d = await startDashboard();
  }, 120_000);
  afterAll(() => d?.close());

  const row = (page: Page, name: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });

  /** Each step of "Try it" as shown: [step, status, text]. */
  const trialSteps = (region: Locator) =>
    region
      .getByRole('list', { name: 'Trial steps' })
      .getByRole('listitem')
      .evaluateAll((items) => items.map((li) => [(li as HTMLElement).dataset.step, li.className, li.textContent ?? '']));

  /** Runs "Try it" and waits for its verdict. */
  async function tryIt(region: Locator): Promise<string[][]> {
    await region.getByRole('button', { name: 'Try it' }).click();
    await region
      .getByRole('status')
      .getByText(/Every step passed|A step failed/)
      .waitFor({ timeout: 60_000 });
    return (await trialSteps(region)) as string[][];
  }

  const expectAllPassed = (steps: string[][]) => {
    expect(steps.map(([step, status]) => [step, status])).toEqual([
      ['challenge', 'passed'],
      ['solved', 'passed'],
      ['nonce', 'passed'],
      ['verified', 'passed'],
      ['spent', 'passed'],
    ]);
    expect(steps[0][2]).toContain('HTTP 200');
    expect(steps[2][2]).toContain('ghn_');
    expect(steps[3][2]).toContain('valid: true, solved on 127.0.0.1');
    expect(steps[4][2]).toContain('valid: false (already_used)');
  };

  it.each([
    [1280, 860],
    [390, 844],
  ])(
    'greets a new account at %i px: widget key for a site, snippet, verify key, "Try it" green end to end; then the row shows the key and snippet, and the guide reads',
    async (width, height) => {
      const account = await createAccount(d.t);
      const { context, page, problems, urls } = await openDashboard(d, '/keys');
      await page.setViewportSize({ width, height });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.base });
      await signIn(page, account.owner);

      const onboarding = page.getByRole('region', { name: 'Protect your first form' });
      await onboarding.waitFor();
      expect(await page.getByText('No keys yet').count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      expect(await sidewaysScroll(page)).toEqual([]);

      // 1. A widget key limited to the customer's site, and its snippet.
      await onboarding.getByLabel("Your site's address").fill('shop.example.com/');
      await onboarding.getByRole('button', { name: 'Create widget key' }).click();
      await onboarding.getByText('works on https://shop.example.com').waitFor();
      const stored = await d.t.prisma.apiKey.findFirstOrThrow({ where: { accountId: account.id } });
      expect(stored).toMatchObject({
        name: 'Widget for shop.example.com',
        scopes: ['widget'],
        allowedOrigins: ['https://shop.example.com'],
      });
      const snippet = `<script src="${d.base}/widget/v1/gatehouse.js" defer></script>\n<div class="gatehouse-widget" data-key="${stored.widgetKey}" data-auto="onfocus"></div>`;
      expect(await onboarding.locator('pre').first().textContent()).toBe(snippet);
      await onboarding.getByRole('button', { name: 'Copy snippet' }).click();
      await onboarding.getByText('Copied.').first().waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);

      // 2. A verify key, shown once, and the server's call with it.
      await onboarding.getByRole('button', { name: 'Create verify key' }).click();
      const verifyKey = (await onboarding.getByTestId('verify-secret').textContent())!;
      expect(verifyKey).toMatch(/^gh_/);
      expect(await onboarding.locator('pre').nth(1).textContent()).toContain(
        `curl -s ${d.base}/api/v1/nonces/verify -H 'x-api-key: ${verifyKey}'`,
      );
      expect(await d.t.prisma.apiKey.findFirstOrThrow({ where: { accountId: account.id, scopes: { equals: ['verify'] } } })).toMatchObject({
        widgetKey: null,
      });
      // The long snippets scroll in their own boxes, not the page.
      expect(await sidewaysScroll(page)).toEqual([]);

      // 3. The real widget runs here with the key made for shop.example.com, and its nonce verifies once.
      expectAllPassed(await tryIt(onboarding));
      // The widget rendered in the page, ticked.
      expect(await onboarding.locator('altcha-widget').getByRole('checkbox').isChecked()).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      // Nothing of the onboarding sticks out of a phone's screen.
      const box = (await onboarding.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      expect(await sidewaysScroll(page)).toEqual([]);

      // From now on: no greeting (the account has a widget key), and the key's row shows it and its snippet.
      await page.reload();
      await page.getByRole('button', { name: 'Protect a form' }).waitFor();
      expect(await page.getByRole('region', { name: /Protect/ }).count()).toBe(0);
      await row(page, 'Widget for shop.example.com').getByRole('button', { name: 'Snippet of Widget for shop.example.com' }).click();
      const dialog = page.getByRole('dialog', { name: 'Widget key Widget for shop.example.com' });
      expect(await dialog.getByTestId('widget-key').textContent()).toBe(stored.widgetKey);
      expect(await dialog.locator('pre').textContent()).toBe(snippet);
      expect(await axeViolations(page)).toEqual([]);
      expect(await sidewaysScroll(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Close' }).click();
      // The verify key is never shown again.
      expect(
        await row(page, 'Server verify key')
          .getByRole('button', { name: /Snippet/ })
          .count(),
      ).toBe(0);
      expect(await page.content()).not.toContain(verifyKey);

      // The guide, from the navigation.
      await page.getByRole('link', { name: 'Protect a form: the guide' }).click();
      await page.getByRole('heading', { level: 1, name: 'Protect a form in five minutes' }).waitFor();
      for (const heading of ['1. Two keys', '2. The snippet', '3. Verify on your server', '5. Content Security Policy']) {
        await page.getByRole('heading', { level: 2, name: heading }).waitFor();
      }
      const text = (await page.getByRole('main').textContent())!;
      expect(text).toContain(`${d.base}/widget/v1/gatehouse.js`);
      expect(text).not.toMatch(/\*\*|```|\|---/);
      // Every table of the guide drawn as a table.
      const tables = readFileSync(resolve(__dirname, '../../docs/PROTECT-A-FORM.md'), 'utf8').match(/^\|-/gm)!.length;
      expect(tables).toBeGreaterThan(0);
      expect(await page.getByRole('main').getByRole('table').count()).toBe(tables);
      // A wide table scrolls in its own box: the page does not scroll sideways.
      expect(await sidewaysScroll(page)).toEqual([]);
      expect(await axeViolations(page)).toEqual([]);
      expect(urls.filter((u) => u.includes(verifyKey))).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    },
    120_000,
  );

  it('reopens as "Protect a form" with a key already made, asks for a verify key it did not make, and stays hidden once hidden', async () => {
    const account = await createAccount(d.t);
    await account.createKey({ name: 'Shop widget', scopes: ['widget'], allowedOrigins: ['https://shop.example.com'] });
    const { key: verifyKey } = await account.createKey({ name: 'Shop server', scopes: ['verify'] });
    const old = await account.createKey({ name: 'Old widget', scopes: ['widget'] });
    // A widget key made before widget keys were kept readable: only its hash.
    await d.t.prisma.apiKey.update({ where: { id: old.id }, data: { widgetKey: null } });

    const { context, page, problems } = await openDashboard(d, '/keys');
    await signIn(page, account.owner);
    await row(page, 'Old widget').getByText('rotate it to see it').waitFor();
    expect(
      await row(page, 'Old widget')
        .getByRole('button', { name: /Snippet/ })
        .count(),
    ).toBe(0);
    expect(await page.getByRole('region', { name: /Protect/ }).count()).toBe(0);

    // A readable widget key keeps the widget scope alone: the edit form offers nothing else.
    await row(page, 'Shop widget').getByRole('button', { name: 'Edit Shop widget' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Shop widget' });
    expect(await edit.getByRole('checkbox', { name: /^verify/ }).isDisabled()).toBe(true);
    expect(await edit.getByRole('checkbox', { name: /^public/ }).isDisabled()).toBe(true);
    await edit.getByText('it keeps the widget scope alone').waitFor();
    await edit.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Protect a form' }).click();
    const onboarding = page.getByRole('region', { name: 'Protect a form' });
    await onboarding.getByRole('button', { name: 'Use Shop widget' }).click();
    const tryButton = onboarding.getByRole('button', { name: 'Try it' });
    expect(await tryButton.isDisabled()).toBe(true);
    await onboarding.getByLabel('Verify key').fill(verifyKey);
    expectAllPassed(await tryIt(onboarding));
    expect(await axeViolations(page)).toEqual([]);

    await onboarding.getByRole('button', { name: 'Hide this guide' }).click();
    await onboarding.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => Object.values(localStorage).join(' '))).not.toContain('gh_');
    expect(await page.evaluate(() => Object.values(sessionStorage).join(' '))).not.toContain('gh_');
    expect(problems).toEqual([]);
    await context.close();

    // A new account hides its greeting: it stays hidden in this browser, and the button brings it back.
    const fresh = await createAccount(d.t);
    const again = await openDashboard(d, '/keys');
    await signIn(again.page, fresh.owner);
    const greeting = again.page.getByRole('region', { name: 'Protect your first form' });
    await greeting.getByRole('button', { name: 'Hide this guide' }).click();
    await again.page.reload();
    await again.page.getByRole('button', { name: 'Protect a form' }).waitFor();
    expect(await greeting.count()).toBe(0);
    await again.page.getByRole('button', { name: 'Protect a form' }).click();
    await greeting.waitFor();
    expect(again.problems).toEqual([]);
    await again.context.close();
  }, 120_000);

  it('reads localhost:8081 as http://localhost:8081 and says so before the key is made; "Try it" shows both keys used; a second run names its keys apart', async () => {
    const account = await createAccount(d.t);
    const { context, page, problems } = await openDashboard(d, '/keys');
    await signIn(page, account.owner);
    const onboarding = page.getByRole('region', { name: 'Protect your first form' });
    const site = onboarding.getByLabel("Your site's address");

    // Shown with its scheme as it is typed: http for localhost and IP addresses, https elsewhere.
    const willAllow = onboarding.getByTestId('will-allow');
    await site.fill('shop.example.com');
    expect(await willAllow.textContent()).toBe('Will allow: https://shop.example.com');
    await site.fill('127.0.0.1:5173');
    expect(await willAllow.textContent()).toBe('Will allow: http://127.0.0.1:5173');
    await site.fill('localhost:8081');
    expect(await willAllow.textContent()).toBe('Will allow: http://localhost:8081');
    await onboarding.getByRole('button', { name: 'Create widget key' }).click();
    await onboarding.getByText('works on http://localhost:8081').waitFor();
    expect(await d.t.prisma.apiKey.findFirstOrThrow({ where: { accountId: account.id } })).toMatchObject({
      name: 'Widget for localhost:8081',
      allowedOrigins: ['http://localhost:8081'],
    });
    await onboarding.getByRole('button', { name: 'Create verify key' }).click();
    await onboarding.getByTestId('verify-secret').waitFor();

    // Neither key has been used yet; right after "Try it" the list says both were, without a reload.
    const lastUsed = (name: string) => row(page, name).getByRole('cell').nth(4);
    await row(page, 'Server verify key').waitFor();
    expect([await lastUsed('Widget for localhost:8081').textContent(), await lastUsed('Server verify key').textContent()]).toEqual([
      'never',
      'never',
    ]);
    expectAllPassed(await tryIt(onboarding));
    for (const name of ['Widget for localhost:8081', 'Server verify key']) {
      await eventually(async () => expect(await lastUsed(name).textContent()).not.toBe('never'), { timeoutMs: 3_000 });
    }

    // "Try it again": a second run, on a new widget element in a page that has the script already, gets a
    // nonce of its own and passes too; the nonce step shows each run's nonce by its end, which tells them apart.
    const nonceField = onboarding.locator('input[name="gatehouse-nonce"]');
    const nonceStep = async () => ((await trialSteps(onboarding)) as string[][])[2][2];
    const firstNonce = await nonceField.inputValue();
    expect(firstNonce).toMatch(/^ghn_/);
    expect(await nonceStep()).toContain(`ghn_…${firstNonce.slice(-10)},`);
    await onboarding.getByRole('button', { name: 'Try it again' }).click();
    await eventually(
      async () => {
        expect(await nonceField.inputValue()).toMatch(/^ghn_/);
        expect(await nonceField.inputValue()).not.toBe(firstNonce);
        expectAllPassed((await trialSteps(onboarding)) as string[][]);
        expect(await nonceStep()).toContain(`ghn_…${(await nonceField.inputValue()).slice(-10)},`);
      },
      { timeoutMs: 30_000 },
    );

    // The guide again for the same site: its keys get names of their own, as the revoke dialog must tell keys apart.
    await onboarding.getByRole('button', { name: 'Hide this guide' }).click();
    await page.getByRole('button', { name: 'Protect a form' }).click();
    const again = page.getByRole('region', { name: 'Protect a form' });
    await again.getByLabel("Your site's address").fill('localhost:8081');
    await again.getByRole('button', { name: 'Create widget key' }).click();
    await again.getByText('Widget for localhost:8081 (2)').waitFor();
    await again.getByRole('button', { name: 'Create verify key' }).click();
    await again.getByTestId('verify-secret').waitFor();
    const names = (await d.t.prisma.apiKey.findMany({ where: { accountId: account.id }, orderBy: { createdAt: 'asc' } })).map(
      (k) => k.name,
    );
    expect(names).toEqual(['Widget for localhost:8081', 'Server verify key', 'Widget for localhost:8081 (2)', 'Server verify key (2)']);
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it('tells an analyst how forms are protected and links the guide', async () => {
    const account = await createAccount(d.t);
    const analyst = await account.addUser('ANALYST');
    const { context, page, problems } = await openDashboard(d, '/keys');
    await signIn(page, analyst);
    await page.getByText('An analyst sees traffic, not keys').waitFor();
    await page.getByRole('main').getByRole('link', { name: 'guide' }).click();
    await page.getByRole('heading', { level: 1, name: 'Protect a form in five minutes' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});
