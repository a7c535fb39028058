/// <reference lib="dom" />
// Code in page.evaluate runs in the browser.
import { randomUUID } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { axeViolations, Dashboard, DashboardPage, describeInBrowser, openDashboard, signIn, startDashboard } from '../utils/dashboard';
import { createAccount, createPlan, TestAccount } from '../utils/test-app';
import { altchaPayload, issueNonce } from '../utils/widget';

const WIDTHS = [
  { width: 1280, height: 860 },
  { width: 390, height: 844 },
];

/** "· 2xx: 12" in the request totals, as a number. */
const countOf = async (totals: Locator, statusClass: string) =>
  Number(new RegExp(`· ${statusClass}: ([\\d,]+)`).exec((await totals.textContent())!)![1].replace(/,/g, ''));

/** Each legend entry of the charts in `scope` (a chart or a part of the page): its label and its swatch's colour. */
const legendColours = (scope: Locator) =>
  scope
    .locator('ul.legend li')
    .evaluateAll((items) =>
      items.map((li) => ({ label: li.textContent.trim(), colour: li.querySelector('line')!.getAttribute('stroke')!.toLowerCase() })),
    );

/** How many pixels of a chart's canvas are (nearly) each colour: the lines as drawn, not as configured. */
const pixelsOf = (chart: Locator, colours: string[]) =>
  chart
    .locator('canvas')
    .first()
    .evaluate((canvas, hexes) => {
      const c = canvas as HTMLCanvasElement;
      const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
      const rgb = hexes.map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));
      const counts = hexes.map(() => 0);
      for (let p = 0; p < data.length; p += 4) {
        rgb.forEach(([r, g, b], i) => {
          if (Math.abs(data[p] - r) + Math.abs(data[p + 1] - g) + Math.abs(data[p + 2] - b) < 40 && data[p + 3] > 200) counts[i]++;
        });
      }
      return counts;
    }, colours);

const isGreen = (hex: string) => {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return g > r + 40 && g > b + 40;
};
const isRed = (hex: string) => {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return r > g + 80 && r > b + 80;
};

/** The dashboard keeps what a page shows in its address; analytics refresh themselves; charts speak one colour language. */
describeInBrowser('dashboard: state in the address, refresh, colours and time axis, in Chromium', () => {
  let d: Dashboard;
  let account: TestAccount;

  beforeAll(async () => {
    d = await startDashboard();
    // Room for the many page loads of one person here (the analytics page asks GET /analytics/usage six times a load).
    account = await createAccount(d.t, await createPlan(d.t, 6000, 6000));
    const key = await account.createKey({ name: 'Checkout widget', scopes: ['widget', 'verify', 'public'] });
    const other = await account.createKey({ name: 'Server only', scopes: ['verify'] });
    for (let i = 0; i < 3; i++) await d.t.http.get('/api/v1/public/ping').set('X-Api-Key', key.key).expect(200);
    for (let i = 0; i < 2; i++) await d.t.http.get('/api/v1/public/ping').set('X-Api-Key', other.key).expect(403);
    // The widget: a challenge solved and its nonce valid; a challenge answered wrong; a nonce that is no nonce.
    const { nonce } = await issueNonce(d.t, key.key);
    expect((await d.t.http.post('/api/v1/nonces/verify').set('X-Api-Key', key.key).send({ nonce }).expect(200)).body.valid).toBe(true);
    const challenge = await d.t.http.get('/api/v1/widget/challenge').set('X-Api-Key', key.key).expect(200);
    const wrong = await d.t.http
      .post('/api/v1/widget/nonces')
      .set('X-Api-Key', key.key)
      .send({ altcha: altchaPayload(challenge.body, { counter: -1, derivedKey: '0'.repeat(64) }) });
    expect(wrong.status).toBeGreaterThanOrEqual(400);
    const bogus = await d.t.http.post('/api/v1/nonces/verify').set('X-Api-Key', key.key).send({ nonce: 'not-a-nonce' });
    expect(bogus.body.valid).not.toBe(true);
    await d.t.http
      .post('/api/v1/team/invitations')
      .set('Authorization', `Bearer ${account.owner.token}`)
      .send({ email: `pending-${randomUUID()}@example.com`, role: 'ANALYST' })
      .expect(201);
  }, 120_000);
  afterAll(() => d?.close());

  describe.each(WIDTHS)('at $width px', (viewport) => {
    /** A fresh browser at this width on `path`, signed in as `user` (the sign-in page returns to `path`). */
    async function openSignedIn(path: string, user = account.owner): Promise<DashboardPage> {
      const view = await openDashboard(d, path);
      await view.page.setViewportSize(viewport);
      await signIn(view.page, user);
      return view;
    }
    /** Nothing on the page is wider than the window (a phone would zoom the whole page out): the charts and their legends fit. */
    const fits = async (page: Page) =>
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    const checked = (page: Page, label: string) => page.getByRole('radio', { name: label }).isChecked();

    it('keeps the analytics period and requests in the address: a reload and the copied link show the same', async () => {
      const { context, page, problems } = await openSignedIn('/analytics');
      const totals = page.getByTestId('request-totals');
      await totals.waitFor();
      const keysOnly = await countOf(totals, '2xx');
      const refused = await countOf(totals, '4xx'); // the keys' refusals: the dashboard's calls add none
      const entries = await page.evaluate(() => history.length);

      await page.getByRole('radio', { name: 'Last 7 days' }).check();
      await page.getByRole('radio', { name: "All, this dashboard's included" }).check();
      await page.waitForURL((url) => url.pathname === '/analytics' && url.search === '?period=week&requests=all');
      // Choosing replaces the address's entry: Back leaves the page instead of stepping through choices.
      expect(await page.evaluate(() => history.length)).toBe(entries);
      const perDay = page.getByRole('table', { name: 'Requests per day by status class', includeHidden: true });
      await perDay.waitFor({ state: 'attached' });
      await totals.filter({ hasNotText: new RegExp(`· 2xx: ${keysOnly}(?!\\d)`) }).waitFor();
      expect(await countOf(totals, '2xx')).toBeGreaterThan(keysOnly);
      expect(await axeViolations(page)).toEqual([]);

      /** The page shows the last 7 days of every caller's requests. */
      const showsWeekOfAll = async (view: Page) => {
        expect(await checked(view, 'Last 7 days')).toBe(true);
        expect(await checked(view, "All, this dashboard's included")).toBe(true);
        expect(await checked(view, 'Last hour')).toBe(false);
        await view.getByRole('table', { name: 'Requests per day by status class', includeHidden: true }).waitFor({ state: 'attached' });
        const shown = view.getByTestId('request-totals');
        await shown.waitFor();
        expect(await countOf(shown, '2xx')).toBeGreaterThan(keysOnly); // the dashboard's calls count
        expect(await countOf(shown, '4xx')).toBe(refused);
      };
      await page.reload();
      await showsWeekOfAll(page);

      const shared = await openSignedIn(page.url().slice(d.base.length));
      await shared.page.waitForURL((url) => url.search === '?period=week&requests=all');
      await showsWeekOfAll(shared.page);
      expect(await axeViolations(shared.page)).toEqual([]);

      // Back to the defaults: they leave the address.
      await page.getByRole('radio', { name: 'Last hour' }).check();
      await page.getByRole('radio', { name: /^With API keys/ }).check();
      await page.waitForURL((url) => url.pathname === '/analytics' && url.search === '');
      await totals.filter({ hasText: new RegExp(`· 2xx: ${keysOnly}(?!\\d)`) }).waitFor();
      expect([...problems, ...shared.problems]).toEqual([]);
      await shared.context.close();
      await context.close();
    });

    it('shows the defaults for an address it does not know, without an error', async () => {
      const { context, page, problems } = await openSignedIn('/analytics?period=fortnight&requests=robots');
      await page.getByTestId('request-totals').waitFor();
      expect(await checked(page, 'Last hour')).toBe(true);
      expect(await checked(page, 'With API keys (your pages and servers)')).toBe(true);
      await page.getByRole('table', { name: 'Requests per minute by status class', includeHidden: true }).waitFor({ state: 'attached' });
      expect(await page.getByRole('alert').count()).toBe(0);
      expect(problems).toEqual([]);
      await context.close();
    });

    it('draws every line in the colour of its meaning, the same in each chart: valid and solved green, failed and refused red', async () => {
      const { context, page, problems } = await openSignedIn('/analytics?period=week');
      const widget = page.getByRole('region', { name: 'Widget' });
      const requests = page.getByRole('region', { name: 'Requests by status' });
      await widget.locator('figure.chart').nth(1).locator('canvas').waitFor();
      await requests.locator('canvas').waitFor();
      const legend = [...(await legendColours(requests)), ...(await legendColours(widget))];
      const colour = Object.fromEntries(legend.map((l) => [l.label, l.colour]));
      expect(Object.keys(colour)).toEqual([
        '2xx success',
        '3xx redirect',
        '4xx refused',
        '5xx server error',
        'Challenges issued',
        'Challenges solved',
        'Challenges failed',
        'Nonces valid',
        'Nonces invalid',
      ]);
      const good = colour['2xx success'];
      const bad = colour['4xx refused'];
      expect(isGreen(good)).toBe(true);
      expect(isRed(bad)).toBe(true);
      expect([colour['Challenges solved'], colour['Nonces valid']]).toEqual([good, good]);
      expect([colour['Challenges failed'], colour['Nonces invalid']]).toEqual([bad, bad]);
      // The others are neither green nor red, and no chart has two lines of one colour.
      for (const label of ['3xx redirect', '5xx server error', 'Challenges issued']) expect([good, bad]).not.toContain(colour[label]);
      for (const chart of await page.locator('figure.chart').all()) {
        const colours = (await legendColours(chart)).map((l) => l.colour);
        expect(new Set(colours).size).toBe(colours.length);
      }
      // And the canvas draws them so: the lines that rose above zero are there in their colour.
      const [challenges, nonces] = [widget.locator('figure.chart').nth(0), widget.locator('figure.chart').nth(1)];
      expect(await widget.locator('figure.chart').count()).toBe(2);
      for (const [chart, colours] of [
        [requests.locator('figure.chart'), [good, bad]],
        [challenges, [colour['Challenges issued'], good, bad]],
        [nonces, [good, bad]],
      ] as const) {
        for (const n of await pixelsOf(chart, [...colours])) expect(n).toBeGreaterThan(10);
      }
      await fits(page);
      expect(await axeViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });

    it('labels the time axis in the period’s unit: days for 7 days, times of day for 24 hours and the last hour', async () => {
      const { context, page, problems } = await openSignedIn('/analytics?period=week');
      const axis = page.getByRole('region', { name: 'Requests by status' }).locator('.chart-canvas');
      await axis.locator('canvas').waitFor();
      const ticks = async () => (await axis.getAttribute('data-x-ticks'))!.split(' | ');
      // The period's seven UTC days, as "Thu Nov 26", the last one today.
      const days = await page.evaluate(() =>
        Array.from({ length: 7 }, (_, i) => {
          const at = new Date(Date.now() - (6 - i) * 86_400_000);
          const weekday = at.toLocaleDateString(undefined, { weekday: 'short', timeZone: 'UTC' });
          return `${weekday} ${at.toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' })}`;
        }),
      );
      const week = await ticks();
      expect(week.length).toBeGreaterThanOrEqual(3);
      expect(week.at(-1)).toBe(days[6]);
      for (const label of week) expect(days).toContain(label);
      const at = week.map((label) => days.indexOf(label));
      const steps = new Set(at.slice(1).map((i, n) => i - at[n]));
      expect(steps.size).toBe(1); // evenly spaced
      if (viewport.width >= 1280) expect(week).toEqual(days); // room for every day

      const clockTime = /^\d{1,2}(:\d{2})?(\s?[AP]M)?( |$)/; // 2:05 PM, 14:05, 2 PM, 14
      for (const [label, period] of [
        ['Last 24 hours', '?period=day'],
        ['Last hour', ''],
      ]) {
        const before = await axis.getAttribute('data-x-ticks');
        await page.getByRole('radio', { name: label }).check();
        await page.waitForURL((url) => url.search === period);
        await page.waitForFunction((last) => document.querySelector('.chart-canvas')?.getAttribute('data-x-ticks') !== last, before);
        const labels = await ticks();
        expect(labels.length).toBeGreaterThanOrEqual(3);
        for (const tick of labels) expect(tick).toMatch(clockTime);
      }
      expect(problems).toEqual([]);
      await context.close();
    });

    it('keeps the team tab in the address: a reload and the copied link open the same tab', async () => {
      const { context, page, problems } = await openSignedIn('/team');
      const tabs = page.getByRole('tablist', { name: 'Team' });
      const members = tabs.getByRole('tab', { name: /^Members/ });
      const invitations = tabs.getByRole('tab', { name: /^Pending invitations/ });
      await tabs.getByRole('tab', { name: 'Pending invitations (1)' }).waitFor();
      expect(await members.getAttribute('aria-selected')).toBe('true');
      const ownerRow = page.getByRole('rowheader', { name: new RegExp(`^${account.owner.email}`) });
      const pendingRow = page.getByRole('rowheader', { name: /^pending-/ });
      await ownerRow.waitFor();
      expect(await pendingRow.count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);

      await invitations.click();
      await page.waitForURL((url) => url.pathname === '/team' && url.search === '?tab=invitations');
      await page
        .getByRole('tabpanel', { name: /^Pending invitations/ })
        .getByRole('rowheader', { name: /^pending-/ })
        .waitFor();
      expect(await ownerRow.count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);

      await page.reload();
      await pendingRow.waitFor();
      expect(await invitations.getAttribute('aria-selected')).toBe('true');

      // The keyboard: one tab stop, the arrows switch tabs (and the address with them).
      await invitations.focus();
      await page.keyboard.press('ArrowLeft');
      await page.waitForURL((url) => url.search === '');
      expect(await members.evaluate((tab) => tab === document.activeElement)).toBe(true);
      await ownerRow.waitFor();
      await page.keyboard.press('End');
      await page.waitForURL((url) => url.search === '?tab=invitations');
      await pendingRow.waitFor();

      const shared = await openSignedIn(page.url().slice(d.base.length));
      await shared.page.getByRole('rowheader', { name: /^pending-/ }).waitFor();
      expect(await shared.page.getByRole('tab', { name: /^Pending invitations/ }).getAttribute('aria-selected')).toBe('true');
      expect(await axeViolations(shared.page)).toEqual([]);
      expect([...problems, ...shared.problems]).toEqual([]);
      await shared.context.close();
      await context.close();
    });

    it('shows a role without the invitations tab the members, whatever the address says', async () => {
      const developer = await account.addUser('DEVELOPER');
      const { context, page, problems, urls } = await openSignedIn('/team?tab=invitations', developer);
      await page.getByRole('rowheader', { name: new RegExp(`^${account.owner.email}`) }).waitFor();
      expect(await page.getByRole('tablist').count()).toBe(0);
      await page.getByRole('heading', { name: 'Members' }).waitFor();
      expect(urls.filter((u) => u.includes('/team/invitations'))).toEqual([]);
      expect(await axeViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });
  });

  it('asks for the figures again every 30 s while the page is visible, and not while it is hidden', async () => {
    const { context, page, problems, urls } = await openDashboard(d, '/analytics');
    await signIn(page, account.owner);
    await page.getByTestId('widget-totals').waitFor();
    // The page's own clock from here on, stopped: only what the test moves it by passes.
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 1_000);
    const asked = () => urls.filter((u) => u.includes('/api/v1/analytics/widget')).length;
    /** Moves the page's clock on in steps of 100 ms until `done` (the answers need a timer to reach the page). */
    const until = async (done: () => Promise<boolean> | boolean) => {
      for (let i = 0; i < 100 && !(await done()); i++) await page.clock.runFor(100);
      expect(await done()).toBe(true);
    };
    const before = asked();
    await page.reload();
    await until(() => asked() === before + 1); // the page asks once on opening
    await until(() => page.getByTestId('widget-totals').isVisible());
    const loaded = asked();

    await page.clock.runFor(27_000); // about 28 s after the page asked
    await page.waitForTimeout(500);
    expect(asked()).toBe(loaded);
    const again = page.waitForRequest((r) => r.url().includes('/api/v1/analytics/widget'));
    let answered = false;
    void page.waitForResponse((r) => r.url().includes('/api/v1/analytics/widget')).then(() => (answered = true));
    await page.clock.runFor(3_000); // 31 s
    await again;
    expect(asked()).toBe(loaded + 1);
    // Its answer in, so that no request is in flight when the page is hidden (one would absorb the refetch on showing).
    await until(() => answered);
    await page.clock.runFor(200);
    // The other figures too: requests by status (one per class), by endpoint, by key.
    expect(urls.filter((u) => u.includes('/api/v1/analytics/usage')).length).toBeGreaterThanOrEqual(2 * (4 + 2));

    // Hidden (another tab in front, the window minimised): nothing is asked, however long.
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
    });
    const hidden = asked();
    await page.clock.runFor(95_000);
    await page.waitForTimeout(500);
    expect(asked()).toBe(hidden);
    // Shown again: the figures, old by now, are asked at once.
    const shown = page.waitForRequest((r) => r.url().includes('/api/v1/analytics/widget'));
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
      document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
    });
    await shown;
    expect(asked()).toBe(hidden + 1);
    expect(problems).toEqual([]);
    await context.close();
  });
});
