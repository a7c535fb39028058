/// <reference lib="dom" />
// Code in page.evaluate runs in the browser.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { webhookVerifySnippet } from '../../dashboard/src/snippets';
import { WEBHOOK_EVENT_TYPES } from '../../src/webhooks/webhook-events';
import { axeViolations, Dashboard, describeInBrowser, openDashboard, sidewaysScroll, signIn, startDashboard } from '../utils/dashboard';
import { createAccount } from '../utils/test-app';
import { Received, WebhookReceiver } from '../utils/webhook-receiver';

/** The webhooks page in Chromium against the real app, delivering to a real receiver on 127.0.0.1 (docs/DASHBOARD.md, docs/WEBHOOKS.md). */
describeInBrowser('dashboard: webhooks, in Chromium', () => {
  let d: Dashboard;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    // The receiver is on loopback: only an operator's WEBHOOK_ALLOW_PRIVATE lets an endpoint point there.
    d = await startDashboard({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    receiver = await WebhookReceiver.start();
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await d?.close();
  });

  const row = (page: Page, url: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader').filter({ hasText: url }) });
  /** Whether `secret` verifies this delivery as the customer's receiver would (standardwebhooks). */
  const verifies = (secret: string, got: Received) => {
    try {
      new Webhook(secret).verify(got.body, got.headers);
      return true;
    } catch {
      return false;
    }
  };

  it('keeps the page path apart from the API resource of the same name', async () => {
    const page = await d.t.http.get('/webhooks').expect(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const api = await d.t.http.get('/api/v1/webhooks').expect(401);
    expect(api.body.error).toBe('missing_credentials');
    expect((await d.t.http.post('/webhooks').send({}).expect(404)).body.error).toBe('not_found');
  });

  it.each([
    [1280, 860],
    [390, 844],
  ])(
    'at %i px: adds an endpoint, its secret once with a verification snippet, sends a test seen delivered (200) in the log, retries it, disables and enables, rotates, edits (emptying the description removes it) and deletes',
    async (width, height) => {
      const account = await createAccount(d.t);
      const path = `/hooks/${randomUUID()}`;
      const url = receiver.url(path);
      const { context, page, problems, urls } = await openDashboard(d, '/webhooks');
      await page.setViewportSize({ width, height });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.base });
      await signIn(page, account.owner);
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await page.getByText('No webhooks yet').waitFor();

      await page.getByRole('button', { name: 'Add webhook' }).click();
      const add = page.getByRole('dialog', { name: 'Add a webhook' });
      // A URL the API refuses: its reason, and nothing registered.
      await add.getByLabel('URL').fill('ftp://example.com/hooks');
      await add.getByRole('button', { name: 'Add webhook' }).click();
      await add.getByRole('alert').getByText('url must be an https URL').waitFor();
      // Said once, not once more as the field's detail; and no WEBHOOK_ALLOW_PRIVATE hint: it would not let ftp through.
      expect((await add.getByRole('alert').textContent())!.trim()).toBe('url must be an https URL');
      expect(await add.getByTestId('allow-private-hint').count()).toBe(0);
      expect(await sidewaysScroll(page)).toEqual([]);
      expect(await d.t.prisma.webhookEndpoint.count({ where: { accountId: account.id } })).toBe(0);
      await add.getByLabel('URL').fill(url);
      await add.getByLabel('Description (optional)').fill('Orders');
      // Every event type is chosen by default, and each is one Gatehouse sends (docs/WEBHOOKS.md, "Events"): none is marked otherwise.
      expect(await add.getByRole('checkbox', { name: 'All events' }).isChecked()).toBe(true);
      const eventBoxes = add.getByRole('group', { name: 'Events' }).getByRole('checkbox');
      expect(await eventBoxes.count()).toBe(WEBHOOK_EVENT_TYPES.length + 1);
      expect(await eventBoxes.evaluateAll((boxes) => boxes.every((b) => (b as HTMLInputElement).checked))).toBe(true);
      expect(await add.getByText(/not sent yet/).count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      await add.getByRole('button', { name: 'Add webhook' }).click();

      const shown = page.getByRole('dialog', { name: 'The signing secret' });
      const secret = (await shown.getByTestId('secret').textContent())!;
      expect(secret).toMatch(/^whsec_/);
      await shown.getByText('it is not shown again').waitFor();
      await shown.getByRole('button', { name: 'Copy secret' }).click();
      await shown.getByText('Copied.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
      // The receiver's code reads the secret from its environment: the snippet holds none.
      expect(await shown.locator('pre').textContent()).toBe(webhookVerifySnippet());
      expect(webhookVerifySnippet()).toContain("import { Webhook } from 'standardwebhooks';");
      expect(await axeViolations(page)).toEqual([]);
      expect(await sidewaysScroll(page)).toEqual([]);
      await shown.getByRole('button', { name: 'I have stored it' }).click();

      const created = row(page, url);
      await created.getByText('all events').waitFor();
      await created.getByText('enabled').waitFor();
      await created.getByText('none yet').waitFor();
      expect(await page.content()).not.toContain(secret); // once: gone with its dialog
      const stored = await d.t.prisma.webhookEndpoint.findFirstOrThrow({ where: { accountId: account.id } });
      expect(stored).toMatchObject({ url, description: 'Orders', events: [], enabled: true });
      expect(await axeViolations(page)).toEqual([]);
      expect(await sidewaysScroll(page)).toEqual([]);

      // A test: the receiver gets it signed with the secret, and the row shows it delivered with 200.
      await created.getByRole('button', { name: 'Send test to Orders' }).click();
      await page.getByText('A test event is on its way').waitFor();
      const [test] = await receiver.waitFor(path, 1);
      expect(JSON.parse(test.body)).toMatchObject({ type: 'webhook.test' });
      expect(verifies(secret, test)).toBe(true);
      await created.getByText('delivered').waitFor();
      await created
        .getByRole('cell')
        .filter({ hasText: /delivered 200/ })
        .waitFor();

      // The log, in the address: the delivery, its attempt's 200 and duration.
      await created.getByRole('link', { name: 'Deliveries of Orders' }).click();
      expect(new URL(page.url()).searchParams.get('endpoint')).toBe(stored.id);
      const log = page.locator('ol.deliveries > li');
      await log.first().getByText('webhook.test').waitFor();
      await log.first().getByText('delivered').waitFor();
      const attempt = log.first().getByRole('row').nth(1);
      expect(await attempt.getByRole('cell').nth(1).textContent()).toBe('200');
      expect(await attempt.getByRole('cell').nth(2).textContent()).toMatch(/^\d+ ms$/);
      await log.first().getByText(test.headers['webhook-id']).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      expect(await sidewaysScroll(page)).toEqual([]);

      // Retry a delivered delivery: one more attempt, same webhook-id.
      await log.first().getByRole('button', { name: 'Retry' }).click();
      const [, again] = await receiver.waitFor(path, 2);
      expect(again.headers['webhook-id']).toBe(test.headers['webhook-id']);
      await log.first().getByText('2 attempts').waitFor();
      await log.first().getByText('delivered').waitFor();
      expect(await log.count()).toBe(1);

      // A reload keeps the log (the address says which endpoint); the link leads back to the list.
      await page.reload();
      await page.locator('ol.deliveries > li').first().getByText('2 attempts').waitFor();
      await page.getByRole('link', { name: '← All webhooks' }).click();

      // Disable: no retry while disabled (409, said so); enable again.
      await created.getByRole('button', { name: 'Disable Orders' }).click();
      await created.getByText('disabled').waitFor();
      expect((await d.t.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: stored.id } })).enabled).toBe(false);
      await created.getByRole('link', { name: 'Deliveries of Orders' }).click();
      await page.getByText('Disabled: events are not sent to it').waitFor();
      await page.locator('ol.deliveries > li').first().getByRole('button', { name: 'Retry' }).click();
      await page.getByRole('alert').getByText('The endpoint is disabled').waitFor();
      expect(receiver.at(path)).toHaveLength(2);
      await page.getByRole('link', { name: '← All webhooks' }).click();
      await created.getByRole('button', { name: 'Enable Orders' }).click();
      await created.getByRole('button', { name: 'Disable Orders' }).waitFor();
      expect((await d.t.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: stored.id } })).enabled).toBe(true);

      // Rotate: a new secret, once; for the grace hour (the default) deliveries verify with either.
      await created.getByRole('button', { name: 'Rotate secret of Orders' }).click();
      const rotate = page.getByRole('dialog', { name: 'Rotate the signing secret' });
      expect(await rotate.getByLabel('The old secret also signs for').inputValue()).toBe('3600');
      expect(await axeViolations(page)).toEqual([]);
      await rotate.getByRole('button', { name: 'Rotate' }).click();
      const rotatedDialog = page.getByRole('dialog', { name: 'The signing secret' });
      const rotated = (await rotatedDialog.getByTestId('secret').textContent())!;
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(secret);
      await rotatedDialog.getByText('signed with the old secret too').waitFor();
      await rotatedDialog.getByRole('button', { name: 'I have stored it' }).click();
      await created.getByText('old secret signs too until').waitFor();
      await created.getByRole('button', { name: 'Send test to Orders' }).click();
      const third = (await receiver.waitFor(path, 3))[2];
      expect([verifies(rotated, third), verifies(secret, third)]).toEqual([true, true]);

      // Edit: chosen events only.
      await created.getByRole('button', { name: 'Edit Orders' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit webhook' });
      await edit.getByRole('checkbox', { name: 'All events' }).uncheck();
      await edit.getByRole('button', { name: 'Save' }).waitFor();
      expect(await edit.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true); // none chosen
      await edit.getByRole('checkbox', { name: /api_key\.revoked/ }).check();
      await edit.getByRole('checkbox', { name: /member\.removed/ }).check();
      await edit.getByLabel('Description (optional)').fill('Orders and team');
      await edit.getByRole('button', { name: 'Save' }).click();
      const edited = row(page, url);
      await edited.getByText('api_key.revoked, member.removed').waitFor();
      expect(await d.t.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: stored.id } })).toMatchObject({
        description: 'Orders and team',
        events: ['api_key.revoked', 'member.removed'],
      });

      // Edit again and empty the description: it is removed, and the row is named by its URL.
      await edited.getByRole('button', { name: 'Edit Orders and team' }).click();
      const clear = page.getByRole('dialog', { name: 'Edit webhook' });
      const description = clear.getByLabel('Description (optional)');
      expect(await description.inputValue()).toBe('Orders and team');
      await description.fill('');
      await clear.getByRole('button', { name: 'Save' }).click();
      await edited.getByRole('button', { name: `Edit ${url}` }).waitFor();
      await clear.waitFor({ state: 'detached' });
      expect(await edited.getByText('Orders and team').count()).toBe(0);
      expect(await d.t.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: stored.id } })).toMatchObject({
        description: null,
        events: ['api_key.revoked', 'member.removed'],
      });

      await edited.getByRole('button', { name: `Delete ${url}` }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete this webhook?' });
      expect(await axeViolations(page)).toEqual([]);
      await confirm.getByRole('button', { name: 'Delete webhook' }).click();
      await page.getByText('No webhooks yet').waitFor();
      expect(await d.t.prisma.webhookEndpoint.count({ where: { accountId: account.id } })).toBe(0);

      expect(urls.filter((u) => u.includes(secret) || u.includes(rotated))).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    },
    120_000,
  );

  it('shows a failing receiver (the failed attempt, its answer, when the next comes; no retry while pending) and one disabled for answering 410', async () => {
    const account = await createAccount(d.t);
    const path = `/failing/${randomUUID()}`;
    receiver.on(path, (_req, res) => {
      res.statusCode = 500;
      res.end('receiver broke');
    });
    const created = await d.t.http
      .post('/api/v1/webhooks')
      .set('Authorization', `Bearer ${account.owner.token}`)
      .send({ url: receiver.url(path), description: 'Broken' })
      .expect(201);
    // The log's own address: sign-in returns to it.
    const { context, page, problems } = await openDashboard(d, `/webhooks?endpoint=${created.body.id}`);
    await signIn(page, account.owner);
    await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
    await page.getByText('No deliveries yet').waitFor();
    await page.getByRole('button', { name: 'Send test' }).click();
    await receiver.waitFor(path, 1);

    const delivery = page.locator('ol.deliveries > li').first();
    await delivery.getByText('pending').waitFor();
    await delivery.getByText(/^Next attempt: /).waitFor();
    const attempt = delivery.getByRole('row').filter({ hasText: '500' }).first();
    await attempt.waitFor();
    await attempt.getByText('Answer').click();
    await attempt.getByText('receiver broke').waitFor();
    expect(await delivery.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    // A receiver that answers 410 Gone: Gatehouse disables its endpoint, and the list says why.
    const gonePath = `/gone/${randomUUID()}`;
    receiver.on(gonePath, (_req, res) => {
      res.statusCode = 410;
      res.end();
    });
    const gone = await d.t.http
      .post('/api/v1/webhooks')
      .set('Authorization', `Bearer ${account.owner.token}`)
      .send({ url: receiver.url(gonePath), description: 'Retired' })
      .expect(201);
    await d.t.http.post(`/api/v1/webhooks/${gone.body.id}/test`).set('Authorization', `Bearer ${account.owner.token}`).expect(202);
    await receiver.waitFor(gonePath, 1);

    await page.getByRole('link', { name: '← All webhooks' }).click();
    const listed = row(page, receiver.url(path));
    await listed
      .getByRole('cell')
      .filter({ hasText: /pending 500/ })
      .waitFor();
    const retired = row(page, receiver.url(gonePath));
    await retired.getByText('by Gatehouse: the receiver answered 410 Gone').waitFor();
    await retired.getByRole('button', { name: 'Enable Retired' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('pages the delivery log 25 at a time with "Load more"', async () => {
    const account = await createAccount(d.t);
    const auth = { Authorization: `Bearer ${account.owner.token}` };
    const created = await d.t.http
      .post('/api/v1/webhooks')
      .set(auth)
      .send({ url: receiver.url(`/many/${randomUUID()}`) })
      .expect(201);
    for (let i = 0; i < 26; i++) await d.t.http.post(`/api/v1/webhooks/${created.body.id}/test`).set(auth).expect(202);
    const { context, page, problems } = await openDashboard(d, `/webhooks?endpoint=${created.body.id}`);
    await signIn(page, account.owner);
    const log = page.locator('ol.deliveries > li');
    await log.nth(24).waitFor();
    expect(await log.count()).toBe(25);
    await page.getByRole('button', { name: 'Load more' }).click();
    await log.nth(25).waitFor();
    expect(await log.count()).toBe(26);
    await page.getByRole('button', { name: 'Load more' }).waitFor({ state: 'detached' });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('gives an ANALYST no link and no webhooks, and says why', async () => {
    const account = await createAccount(d.t);
    const analyst = await account.addUser('ANALYST');
    const { context, page, problems, urls } = await openDashboard(d, '/webhooks');
    await signIn(page, analyst);
    await page.getByText('An analyst sees traffic, not webhooks').waitFor();
    expect(await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add webhook' }).count()).toBe(0);
    expect(urls.filter((u) => new URL(u).pathname.startsWith('/api/v1/webhooks'))).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();

    // A developer has the link.
    const developer = await account.addUser('DEVELOPER');
    const dev = await openDashboard(d, '/analytics');
    await signIn(dev.page, developer);
    await dev.page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Webhooks' }).click();
    await dev.page.getByText('No webhooks yet').waitFor();
    expect(dev.problems).toEqual([]);
    await dev.context.close();
  });
});

/** On a Gatehouse whose operator left WEBHOOK_ALLOW_PRIVATE unset, the default: what a developer's local receiver meets. */
describeInBrowser('dashboard: webhooks without WEBHOOK_ALLOW_PRIVATE, in Chromium', () => {
  let d: Dashboard;

  beforeAll(async () => {
    d = await startDashboard();
  }, 120_000);
  afterAll(() => d?.close());

  it('refuses a local http receiver once, saying how an operator allows one for testing', async () => {
    const account = await createAccount(d.t);
    const { context, page, problems } = await openDashboard(d, '/webhooks');
    await signIn(page, account.owner);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const add = page.getByRole('dialog', { name: 'Add a webhook' });
    for (const [url, reason] of [
      ['http://localhost:4000/hooks', 'url must be an https URL'],
      ['https://127.0.0.1:4000/hooks', 'url must not point to a loopback, private, link-local or metadata address'],
    ]) {
      await add.getByLabel('URL').fill(url);
      await add.getByRole('button', { name: 'Add webhook' }).click();
      await add.getByRole('alert').getByText(reason).waitFor();
      expect((await add.getByRole('alert').textContent())!.trim()).toBe(reason);
      expect(await add.getByTestId('allow-private-hint').textContent()).toContain('WEBHOOK_ALLOW_PRIVATE=true');
    }
    expect(await axeViolations(page)).toEqual([]);
    expect(await d.t.prisma.webhookEndpoint.count({ where: { accountId: account.id } })).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
