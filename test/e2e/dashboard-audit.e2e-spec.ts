/// <reference lib="dom" />
// Code in page.evaluate runs in the browser.
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { axeViolations, Dashboard, describeInBrowser, openDashboard, signIn, startDashboard } from '../utils/dashboard';
import { createAccount, TestAccount, TestUser } from '../utils/test-app';

/** The audit log page in Chromium, against the real app: names, addresses, filters in the URL, pages, the CSV. */
describeInBrowser('dashboard: the audit log, in Chromium', () => {
  let d: Dashboard;

  beforeAll(async () => {
    d = await startDashboard();
  }, 120_000);
  afterAll(() => d?.close());

  const bearer = (user: TestUser) => ({ Authorization: `Bearer ${user.token}` });
  const rows = (page: Page) => page.locator('tbody tr');
  const rowTexts = (page: Page) => rows(page).allTextContents();
  /** How wide the page is drawn: wider than the window means it scrolls sideways. */
  const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

  /**
   * An account whose log has: a key made and renamed and a webhook made and edited by the OWNER, a key
   * made by a DEVELOPER who was then removed, an ADMIN's sign-in, and 55 sign-ins of the OWNER three
   * days ago (more than a page).
   */
  async function accountWithHistory(): Promise<{ account: TestAccount; admin: TestUser; gone: TestUser; keyId: string }> {
    const account = await createAccount(d.t);
    const admin = await account.addUser('ADMIN');
    const gone = await account.addUser('DEVELOPER');
    const key = await account.createKey({ name: 'Audited key', scopes: ['public'] });
    await d.t.http.patch(`/api/v1/api-keys/${key.id}`).set(bearer(account.owner)).send({ name: 'Checkout widget' }).expect(200);
    const hook = await d.t.http
      .post('/api/v1/webhooks')
      .set(bearer(account.owner))
      .send({ url: 'https://93.184.215.14/hooks', description: 'Orders' })
      .expect(201);
    await d.t.http.patch(`/api/v1/webhooks/${hook.body.id}`).set(bearer(account.owner)).send({ description: null }).expect(200);
    await d.t.http.post('/api/v1/api-keys').set(bearer(gone)).send({ name: 'Made by a leaver' }).expect(201);
    await d.t.http.delete(`/api/v1/team/members/${gone.id}`).set(bearer(admin)).expect(204);
    await d.t.http.post('/api/v1/auth/login').send({ email: admin.email, password: admin.password }).expect(200);
    const now = new Date();
    const day = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 3, 12);
    await d.t.prisma.auditEvent.createMany({
      data: Array.from({ length: 55 }, (_, i) => ({
        accountId: account.id,
        actorId: account.owner.id,
        actorEmail: account.owner.email,
        action: 'auth.login',
        targetType: 'user',
        targetId: account.owner.id,
        requestId: `old-${i}`,
        ip: '198.51.100.7',
        createdAt: new Date(day.getTime() + i * 1000),
      })),
    });
    return { account, admin, gone, keyId: key.id };
  }

  describe.each([
    ['a desktop', 1280, 860],
    ['a phone', 390, 844],
  ])('on %s (%i px)', (_, width, height) => {
    it('names who and what (by id once removed), shows the address, filters by member, and keeps filters and page across a reload', async () => {
      const { account, admin, gone } = await accountWithHistory();
      const { context, page, problems } = await openDashboard(d, '/audit');
      await page.setViewportSize({ width, height });
      await signIn(page, account.owner);
      await page.getByRole('heading', { name: 'Audit log' }).waitFor();

      // Names now, not ids: the key by its current name, the actor by email, the address it came from.
      const created = rows(page).filter({ hasText: 'API key created' }).filter({ hasText: account.owner.email });
      await created.waitFor();
      expect(await created.textContent()).toContain('API key Checkout widget');
      expect(await created.textContent()).toContain('127.0.0.1');
      // What changed, in words: a description removed is none, not a default.
      expect(await rows(page).filter({ hasText: 'Webhook edited' }).textContent()).toContain('description: none');
      // The removed member acted before leaving: shown by id, with the address recorded then.
      const leaver = rows(page).filter({ hasText: 'API key Made by a leaver' });
      expect(await leaver.textContent()).toContain(`removed member ${gone.id.slice(0, 8)}`);
      expect(await leaver.textContent()).toContain(`${gone.email} then`);
      const removal = rows(page).filter({ hasText: 'Member removed' });
      expect(await removal.textContent()).toContain(`member ${gone.id.slice(0, 8)} (removed)`);
      expect(await removal.textContent()).toContain(admin.email);
      expect(await rows(page).count()).toBe(50);
      expect(await axeViolations(page)).toEqual([]);
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);

      // Filter by member: the address says so, and a reload keeps it.
      await page.getByLabel('Member').selectOption({ label: admin.email });
      await page.waitForURL((url) => url.searchParams.get('actor') === admin.id);
      await page.getByText('That is every event that matches.').waitFor();
      const adminRows = await rowTexts(page);
      expect(adminRows.length).toBe(2); // the sign-in and the removal
      expect(adminRows.every((text) => text.includes(admin.email))).toBe(true);
      await page.reload();
      await page.getByText('That is every event that matches.').waitFor();
      expect(await page.getByLabel('Member').inputValue()).toBe(admin.id);
      expect(await rowTexts(page)).toEqual(adminRows);

      // Back to everyone, then to the older page: its address is a fixed place in the log.
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await page.waitForURL((url) => url.search === '');
      await rows(page).nth(49).waitFor();
      const firstPage = await rowTexts(page);
      await page.getByRole('button', { name: 'Older events' }).click();
      await page.waitForURL((url) => url.searchParams.has('cursor'));
      await page.getByText('No older events.').waitFor();
      const olderPage = await rowTexts(page);
      expect(olderPage.length).toBe((await d.t.prisma.auditEvent.count({ where: { accountId: account.id } })) - 50);
      expect(olderPage.every((text) => text.includes('198.51.100.7'))).toBe(true);
      await page.reload();
      await page.getByText('No older events.').waitFor();
      expect(await rowTexts(page)).toEqual(olderPage);
      const olderLink = new URL(page.url());
      expect(await axeViolations(page)).toEqual([]);
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
      await page.getByRole('button', { name: 'Newer events' }).click();
      await page.waitForURL((url) => !url.searchParams.has('cursor'));
      await rows(page).nth(49).waitFor();
      expect(await rowTexts(page)).toEqual(firstPage);

      // A shared link opens on the same page, in another tab with a session of its own.
      const shared = await openDashboard(d, `${olderLink.pathname}${olderLink.search}`);
      await shared.page.setViewportSize({ width, height });
      await signIn(shared.page, admin);
      await shared.page.getByText('No older events.').waitFor();
      expect(await rowTexts(shared.page)).toEqual(olderPage);
      expect(await shared.page.getByRole('button', { name: 'Newer events' }).count()).toBe(0);
      await shared.page.getByRole('button', { name: 'Newest events' }).click();
      await rows(shared.page).nth(49).waitFor();
      expect(shared.problems).toEqual([]);
      await shared.context.close();

      expect(problems).toEqual([]);
      await context.close();
    });

    it('downloads the filtered range as a CSV file', async () => {
      const { account, admin } = await accountWithHistory();
      const { context, page, problems } = await openDashboard(d, `/audit?action=api_key.created`);
      await page.setViewportSize({ width, height });
      await signIn(page, admin);
      await page.getByText('That is every event that matches.').waitFor();
      expect(await rows(page).count()).toBe(2);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
      expect(download.suggestedFilename()).toBe(`audit-log-${new Date().toISOString().slice(0, 10)}.csv`);
      const csv = await readFile(await download.path(), 'utf8');
      const lines = csv.trimEnd().split('\r\n');
      expect(lines[0]).toBe('createdAt,action,actorId,actorEmail,actorName,ip,targetType,targetId,targetName,requestId,details');
      expect(lines.slice(1).map((line) => line.split(',')[1])).toEqual(['api_key.created', 'api_key.created']);
      expect(csv).toContain(`${account.owner.email},${account.owner.email},127.0.0.1,api_key`);
      expect(csv).toContain('Checkout widget');
      await page.getByRole('status').filter({ hasText: 'Downloaded audit-log-' }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });
  });

  it('leaves out what a link holds that it cannot read, and says so', async () => {
    const { account } = await accountWithHistory();
    const { context, page, problems } = await openDashboard(d, '/audit?actor=someone&action=api_key.updated&from=2025-02-30');
    await signIn(page, account.owner);
    await page.getByText('That is every event that matches.').waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'could not be read' }).textContent()).toBe(
      "This link's member, first day could not be read, and are left out.",
    );
    expect(await rowTexts(page)).toEqual([expect.stringContaining('API key edited')]);
    expect(await page.getByLabel('Action').inputValue()).toBe('api_key.updated');
    expect(await page.getByLabel('Member').inputValue()).toBe('');
    // The next change writes a clean address.
    await page.getByLabel('Action').selectOption('api_key.created');
    await page.waitForURL((url) => url.search === '?action=api_key.created');
    await page.getByText('could not be read').waitFor({ state: 'detached' });
    // Not an action, though every object has it.
    await page.goto('/audit?action=toString');
    await page.getByText("This link's action could not be read, and is left out.").waitFor();
    await rows(page).nth(49).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('says so when a range holds more than an export may, and downloads nothing', async () => {
    const account = await createAccount(d.t);
    // 100,001 sign-ins, one a second back from an hour ago: one more than an export holds.
    await d.t.prisma.$executeRawUnsafe(
      `INSERT INTO "AuditEvent" ("id", "accountId", "actorId", "actorEmail", "action", "targetType", "targetId", "requestId", "createdAt")
       SELECT gen_random_uuid(), $1::uuid, $2::uuid, $3, 'auth.login', 'user', $2, 'bulk-' || n, now() - INTERVAL '1 hour' - n * INTERVAL '1 second'
       FROM generate_series(1, 100001) AS n`,
      account.id,
      account.owner.id,
      account.owner.email,
    );
    await d.t.prisma.$executeRawUnsafe('ANALYZE "AuditEvent"');
    const { context, page, problems } = await openDashboard(d, '/audit');
    await signIn(page, account.owner);
    await rows(page).nth(49).waitFor();
    let downloads = 0;
    page.on('download', () => downloads++);
    await page.getByRole('button', { name: 'Download CSV' }).click();
    await page.getByRole('alert').filter({ hasText: 'The range holds more than 100000 events' }).waitFor();
    expect(downloads).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it('explains to a developer that the log is not theirs, and asks nothing of the server', async () => {
    const account = await createAccount(d.t);
    const developer = await account.addUser('DEVELOPER');
    const { context, page, problems, urls } = await openDashboard(d, '/audit');
    await signIn(page, developer);
    await page.getByText('The audit log is for the owner and the admins').waitFor();
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    expect(await nav.getByRole('link').allTextContents()).not.toContain('Audit log');
    expect(urls.filter((u) => u.includes('/api/v1/audit-log'))).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
