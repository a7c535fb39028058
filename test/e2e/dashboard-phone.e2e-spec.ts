/// <reference lib="dom" />
// Code in page.evaluate runs in the browser.
import { randomUUID } from 'node:crypto';
import { generateSync } from 'otplib';
import type { Locator, Page } from 'playwright-core';
import {
  axeViolations,
  Dashboard,
  DESKTOP,
  describeInBrowser,
  openDashboard,
  sidewaysScroll,
  signIn,
  startDashboard,
} from '../utils/dashboard';
import { createAccount, TestAccount } from '../utils/test-app';
import { WebhookReceiver } from '../utils/webhook-receiver';
import { issueNonce } from '../utils/widget';

const PHONE = { width: 390, height: 844 };

const row = (page: Page, name: string | RegExp) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });

/**
 * Every page and dialog of the dashboard in a phone's window (390 × 844) and a desktop's, signed in as
 * the OWNER of an account with keys, a webhook, members, invitations, audit events and traffic: nothing
 * scrolls sideways, the lists' actions are on screen, the navigation takes one row on the phone with the
 * current page's link in view, axe finds nothing serious (docs/DASHBOARD.md, "Phones"), and no page
 * logs anything to the console.
 */
describeInBrowser('dashboard: every page and dialog on a phone and a desktop, in Chromium', () => {
  let d: Dashboard;
  let receiver: WebhookReceiver;
  let account: TestAccount;
  let accountName: string;
  /** The account's webhook: its URL (long, as real ones can be), description and id. */
  let hook: { url: string; name: string; id: string };
  /** A member who signs in with an authenticator app: the second step's pages. */
  let guarded: { email: string; password: string; secret: string };

  beforeAll(async () => {
    // The webhook's receiver is on loopback: only WEBHOOK_ALLOW_PRIVATE lets an endpoint point there.
    d = await startDashboard({ SIGNUP: 'open', WEBHOOK_ALLOW_PRIVATE: 'true' });
    receiver = await WebhookReceiver.start();
    account = await createAccount(d.t);
    // Long names and addresses, as real ones can be: they must wrap, not widen the page.
    accountName = `Acme Online Shop and Warehouse ${randomUUID().slice(0, 8)}`;
    await d.t.prisma.account.update({ where: { id: account.id }, data: { name: accountName } });
    const widget = await account.createKey({
      name: 'Checkout widget',
      scopes: ['widget', 'verify', 'public'],
      allowedOrigins: ['https://shop.example.com', 'https://checkout.a-rather-long-domain-name.example.com'],
    });
    await account.createKey({ name: 'Open widget', scopes: ['widget'] });
    const server = await account.createKey({ name: 'Order server', scopes: ['verify'] });
    const gone = await account.createKey({ name: 'Old key', scopes: ['public'] });
    await d.t.http.delete(`/api/v1/api-keys/${gone.id}`).set('Authorization', `Bearer ${account.owner.token}`).expect(200);
    for (let i = 0; i < 4; i++) await d.t.http.get('/api/v1/public/ping').set('X-Api-Key', widget.key).expect(200);
    await d.t.http.get('/api/v1/public/ping').set('X-Api-Key', server.key).expect(403); // no public scope
    const { nonce } = await issueNonce(d.t, widget.key, 'https://shop.example.com');
    await d.t.http.post('/api/v1/nonces/verify').set('X-Api-Key', server.key).send({ nonce }).expect(200);
    await account.addUser('DEVELOPER');
    await account.addUser('ANALYST');
    const withApp = await account.addUser('ADMIN');
    const totp = await d.t.http.post('/api/v1/auth/mfa/totp').set('Authorization', `Bearer ${withApp.token}`).expect(201);
    await d.t.http
      .post('/api/v1/auth/mfa/totp/confirm')
      .set('Authorization', `Bearer ${withApp.token}`)
      .send({ code: generateSync({ secret: totp.body.secret }) })
      .expect(200);
    guarded = { email: withApp.email, password: withApp.password, secret: totp.body.secret };
    const hookPath = `/orders/receivers/gatehouse-events-of-the-shop-and-the-warehouse/${randomUUID()}`;
    const created = await d.t.http
      .post('/api/v1/webhooks')
      .set('Authorization', `Bearer ${account.owner.token}`)
      .send({ url: receiver.url(hookPath), description: 'Order system', events: ['api_key.revoked', 'member.removed'] })
      .expect(201);
    hook = { url: receiver.url(hookPath), name: 'Order system', id: created.body.id };
    await d.t.http.post(`/api/v1/webhooks/${hook.id}/test`).set('Authorization', `Bearer ${account.owner.token}`).expect(202);
    await receiver.waitFor(hookPath, 1);
    for (const [email, role] of [
      [`a-rather-long-address-of-an-analyst-${randomUUID().slice(0, 8)}@example.com`, 'ANALYST'],
      [`admin-${randomUUID()}@example.com`, 'ADMIN'],
    ])
      await d.t.http
        .post('/api/v1/team/invitations')
        .set('Authorization', `Bearer ${account.owner.token}`)
        .send({ email, role })
        .expect(201);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
    await receiver?.close();
  });

  for (const viewport of [PHONE, DESKTOP]) {
    it(`fits every page and dialog into ${viewport.width} px, with the actions on screen and no serious axe finding`, async () => {
      const { width } = viewport;
      /** What is wrong on each page and dialog: page-wide scrolling and axe's serious findings. */
      const findings: string[] = [];
      const seen: string[] = [];
      const check = async (page: Page, where: string) => {
        seen.push(where);
        for (const sideways of await sidewaysScroll(page)) findings.push(`${where}: ${sideways}`);
        // The current page's link, on the signed-in pages.
        const current = await page.evaluate(() => {
          const box = document.querySelector('nav a.active')?.getBoundingClientRect();
          return box && { left: box.left, right: box.right };
        });
        if (current && (current.left < 0 || current.right > width))
          findings.push(`${where}: the current page's link spans ${current.left}–${current.right} px`);
        for (const violation of await axeViolations(page)) findings.push(`${where}: ${violation}`);
      };
      /** A button of a list's row: on screen without scrolling sideways, then clicked. */
      const reachAndClick = async (button: Locator, where: string) => {
        await button.scrollIntoViewIfNeeded();
        const box = (await button.boundingBox())!;
        if (box.x < 0 || box.x + box.width > width) findings.push(`${where}: the button spans ${box.x}–${box.x + box.width} px`);
        const hidden = await button.evaluate((el) => {
          const wrap = el.closest('.table-wrap')!;
          return wrap.scrollWidth - wrap.clientWidth;
        });
        if (hidden > 0) findings.push(`${where}: the table hides ${hidden} px sideways`);
        await button.click();
      };

      const { context, page, problems } = await openDashboard(d, '/keys', viewport);
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await signIn(page, account.owner);
      await page.getByRole('heading', { name: 'API keys' }).waitFor();

      // The navigation: every page of an OWNER, in one row on the phone (it scrolls sideways in its box).
      const nav = page.getByRole('navigation', { name: 'Dashboard' });
      const links = nav.getByRole('link');
      expect(await links.allTextContents()).toEqual([
        'API keys',
        'Webhooks',
        'Analytics',
        'Team',
        'Audit log',
        'Account and plan',
        'Profile',
        'Security',
        'Protect a form: the guide',
        'API reference',
      ]);
      const tops = new Set<number>();
      for (const box of await Promise.all((await links.all()).map((l) => l.boundingBox()))) tops.add(Math.round(box!.y));
      const linkHeight = (await links.first().boundingBox())!.height;
      const navHeight = (await nav.boundingBox())!.height;
      if (width === PHONE.width && (tops.size > 1 || navHeight > 1.5 * linkHeight))
        findings.push(`navigation: ${tops.size} rows, ${navHeight} px tall (a link: ${linkHeight} px)`);
      if (width === DESKTOP.width && tops.size !== (await links.count())) findings.push(`navigation: ${tops.size} rows, not a sidebar`);

      // Keys: the list, each key's actions on screen, and every dialog.
      const checkout = row(page, 'Checkout widget');
      await checkout.waitFor();
      const origins = checkout.getByRole('cell', { name: /https:\/\/shop\.example\.com/ });
      const header = (await page.locator('thead').boundingBox())!; // the keys' table is the page's only one
      if (width === PHONE.width) {
        // A row is a block: the header row is out of sight (for screen readers only), each cell is named by its column.
        expect(header.height).toBeLessThanOrEqual(1);
        expect(await origins.evaluate((cell) => getComputedStyle(cell, '::before').content)).toMatch(/^"Allowed origins"/);
      } else {
        expect(header.height).toBeGreaterThan(10);
        expect(await origins.evaluate((cell) => getComputedStyle(cell, '::before').content)).toBe('none');
      }
      await check(page, 'keys');
      await reachAndClick(row(page, 'Open widget').getByRole('button', { name: 'Snippet of Open widget' }), 'Snippet on a key');
      const widgetKey = page.getByRole('dialog', { name: 'Widget key Open widget' });
      await widgetKey.locator('pre').waitFor();
      await check(page, 'a widget key and its snippet');
      await widgetKey.getByRole('button', { name: 'Close' }).click();
      await reachAndClick(checkout.getByRole('button', { name: 'Edit Checkout widget' }), 'Edit on a key');
      const edit = page.getByRole('dialog', { name: 'Edit Checkout widget' });
      await edit.getByLabel('Name').waitFor();
      await check(page, 'edit a key');
      await edit.getByRole('button', { name: 'Cancel' }).click();
      await reachAndClick(row(page, 'Order server').getByRole('button', { name: 'Rotate Order server' }), 'Rotate on a key');
      await page.getByRole('dialog', { name: 'Rotate Order server' }).waitFor();
      await check(page, 'rotate a key');
      await page.getByRole('dialog', { name: 'Rotate Order server' }).getByRole('button', { name: 'Cancel' }).click();
      await reachAndClick(row(page, 'Open widget').getByRole('button', { name: 'Revoke Open widget' }), 'Revoke on a key');
      await page.getByRole('dialog', { name: 'Revoke Open widget?' }).waitFor();
      await check(page, 'revoke a key');
      await page.getByRole('dialog', { name: 'Revoke Open widget?' }).getByRole('button', { name: 'Cancel' }).click();

      await page.getByRole('button', { name: 'Create key' }).click();
      const create = page.getByRole('dialog', { name: 'Create an API key' });
      await create.getByLabel('Name').fill(`Phone test ${width}`);
      await create.getByRole('checkbox', { name: /^verify/ }).check();
      await create.getByRole('note').waitFor(); // the warning of a key open to any site
      await check(page, 'create a key');
      await create.getByRole('button', { name: 'Create key' }).click();
      const secret = page.getByRole('dialog', { name: `The secret of Phone test ${width}` });
      await secret.getByText('How to use it').click();
      await secret.locator('pre').first().waitFor();
      await check(page, 'the secret shown once, with its snippets');
      await secret.getByRole('button', { name: 'I have stored it' }).click();
      await page.getByLabel('Show').selectOption('all');
      await row(page, 'Old key').waitFor();
      // Rows that come later are named by their columns too.
      const revoked = row(page, 'Old key').getByRole('cell', { name: 'revoked' });
      expect(await revoked.evaluate((cell) => getComputedStyle(cell, '::before').content)).toMatch(
        width === PHONE.width ? /^"Status"/ : /^none$/,
      );
      await check(page, 'keys, revoked ones too');

      // Webhooks: the list, the endpoint's actions on screen, every dialog, and the delivery log.
      await nav.getByRole('link', { name: 'Webhooks' }).click();
      const endpoint = page.getByRole('row').filter({ has: page.getByRole('rowheader').filter({ hasText: hook.url }) });
      await endpoint.waitFor();
      await check(page, 'webhooks');
      await reachAndClick(endpoint.getByRole('button', { name: `Edit ${hook.name}` }), 'Edit on a webhook');
      const editHook = page.getByRole('dialog', { name: 'Edit webhook' });
      await editHook.getByLabel('URL').waitFor();
      await check(page, 'edit a webhook');
      await editHook.getByRole('button', { name: 'Cancel' }).click();
      await reachAndClick(endpoint.getByRole('button', { name: `Rotate secret of ${hook.name}` }), 'Rotate secret on a webhook');
      const rotateHook = page.getByRole('dialog', { name: 'Rotate the signing secret' });
      await rotateHook.getByLabel('The old secret also signs for').waitFor();
      await check(page, 'rotate a webhook secret');
      await rotateHook.getByRole('button', { name: 'Cancel' }).click();
      await reachAndClick(endpoint.getByRole('button', { name: `Delete ${hook.name}` }), 'Delete on a webhook');
      const deleteHook = page.getByRole('dialog', { name: 'Delete this webhook?' });
      await deleteHook.waitFor();
      await check(page, 'delete a webhook');
      await deleteHook.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Add webhook' }).click();
      const addHook = page.getByRole('dialog', { name: 'Add a webhook' });
      await addHook.getByLabel('URL').fill(hook.url);
      await check(page, 'add a webhook');
      await addHook.getByRole('button', { name: 'Cancel' }).click();
      await reachAndClick(endpoint.getByRole('link', { name: `Deliveries of ${hook.name}` }), 'Deliveries on a webhook');
      await page.locator('ol.deliveries > li').first().getByText('webhook.test').waitFor();
      await check(page, 'the deliveries of a webhook');

      // Analytics: each period, and the numbers as tables.
      await nav.getByRole('link', { name: 'Analytics' }).click();
      await page.getByTestId('request-totals').waitFor();
      await page.getByRole('region', { name: 'By API key' }).getByRole('row').nth(1).waitFor();
      await check(page, 'analytics');
      await page.getByLabel('Last 7 days').check();
      for (const chart of await page.getByText('Show as table').all()) await chart.click();
      await page.getByRole('table', { name: 'Requests per day by status class' }).waitFor();
      await check(page, 'analytics over 7 days, as tables');

      // Team: members, invitations, and each dialog.
      await nav.getByRole('link', { name: 'Team' }).click();
      const developer = row(page, /^developer-/);
      await developer.waitFor();
      await check(page, 'team');
      const developerEmail = (await developer.getByRole('rowheader').textContent())!;
      await reachAndClick(developer.getByRole('button', { name: /^Change role of / }), 'Change role on a member');
      const roleDialog = page.getByRole('dialog', { name: `Change role of ${developerEmail}` });
      await roleDialog.getByLabel('Role').waitFor();
      await check(page, 'change a role');
      await roleDialog.getByRole('button', { name: 'Cancel' }).click();
      await reachAndClick(developer.getByRole('button', { name: /^Remove / }), 'Remove on a member');
      await page.getByRole('dialog', { name: `Remove ${developerEmail}?` }).waitFor();
      await check(page, 'remove a member');
      await page
        .getByRole('dialog', { name: `Remove ${developerEmail}?` })
        .getByRole('button', { name: 'Cancel' })
        .click();
      await reachAndClick(developer.getByRole('button', { name: /^Reset password of / }), 'Reset password on a member');
      const reset = page.getByRole('dialog', { name: `Reset password of ${developerEmail}?` });
      await reset.waitFor();
      await check(page, 'reset a password');
      await reset.getByRole('button', { name: 'Cancel' }).click();
      await reachAndClick(developer.getByRole('button', { name: /^Sign out everywhere: / }), 'Sign out everywhere on a member');
      const everywhere = page.getByRole('dialog', { name: `Sign out ${developerEmail} everywhere?` });
      await everywhere.waitFor();
      await check(page, 'sign a member out everywhere');
      await everywhere.getByRole('button', { name: 'Sign out everywhere' }).click();
      const signedOut = page.getByRole('dialog', { name: `${developerEmail} is signed out` });
      await signedOut.getByRole('status').waitFor();
      await check(page, 'a member signed out everywhere');
      await signedOut.getByRole('button', { name: 'Done' }).click();
      await reachAndClick(developer.getByRole('button', { name: /^Reset password of / }), 'Reset password on a member');
      await reset.waitFor();
      await reset.getByRole('button', { name: 'Make reset link' }).click();
      const resetIssued = page.getByRole('dialog', { name: `Password reset for ${developerEmail}` });
      const resetLink = (await resetIssued.getByTestId('one-time-link').textContent())!;
      await check(page, 'a reset link shown once');
      await resetIssued.getByRole('button', { name: 'Done' }).click();
      // The pending invitations, on a tab of their own where the page has tabs.
      const invitationsTab = page.getByRole('tab', { name: /^Pending invitations/ });
      if ((await invitationsTab.count()) > 0) await invitationsTab.click();
      const invited = row(page, /^a-rather-long-address/);
      await invited.waitFor();
      await check(page, 'team, pending invitations');
      await reachAndClick(invited.getByRole('button', { name: /^Revoke the invitation of / }), 'Revoke on an invitation');
      await page.getByRole('dialog', { name: /^Revoke the invitation of / }).waitFor();
      await check(page, 'revoke an invitation');
      await page
        .getByRole('dialog', { name: /^Revoke the invitation of / })
        .getByRole('button', { name: 'Cancel' })
        .click();
      await page.getByRole('button', { name: 'Invite', exact: true }).click();
      const invite = page.getByRole('dialog', { name: 'Invite a member' });
      const joiner = `joiner-${width}-${randomUUID()}@example.com`;
      await invite.getByLabel('Email').fill(joiner);
      await check(page, 'invite');
      await invite.getByRole('button', { name: 'Send invitation' }).click();
      const invitation = page.getByRole('dialog', { name: `Invitation for ${joiner}` });
      const invitationLink = (await invitation.getByTestId('one-time-link').textContent())!;
      await check(page, 'an invitation link shown once');
      await invitation.getByRole('button', { name: 'Done' }).click();

      // Audit log: the events, filtered, and more of them.
      await nav.getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('row').nth(3).waitFor();
      await check(page, 'audit log');
      await page.getByLabel('Action').selectOption('team.password_reset_issued');
      await page.getByRole('button', { name: 'Clear filters' }).waitFor();
      await page.getByRole('row').nth(1).waitFor();
      await check(page, 'audit log, filtered');

      // Account and plan, and its dialogs.
      await nav.getByRole('link', { name: 'Account and plan' }).click();
      // Loaded afresh, the page's link is brought into view (checked on each page) once the role's links are in.
      await page.reload();
      await page.getByRole('heading', { name: 'Account and plan' }).waitFor();
      await page
        .getByRole('button', { name: /^Switch to / })
        .first()
        .click();
      const plan = page.getByRole('dialog', { name: /^Switch to / });
      await plan.waitFor();
      await check(page, 'change the plan');
      await plan.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Delete account…' }).click();
      const remove = page.getByRole('dialog', { name: `Delete ${accountName}?` });
      await remove.getByLabel('Type the account name to confirm').waitFor();
      await check(page, 'delete the account');
      await remove.getByRole('button', { name: 'Cancel' }).click();
      await check(page, 'account and plan');

      await nav.getByRole('link', { name: 'Profile' }).click();
      await page.getByRole('heading', { name: 'Profile' }).waitFor();
      await check(page, 'profile');

      // Security: the authenticator app set up (and turned off again: the next run signs in with the password alone).
      await nav.getByRole('link', { name: 'Security' }).click();
      await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
      const setup = page.getByRole('dialog', { name: 'Set up an authenticator app' });
      await setup.getByRole('img', { name: 'QR code of the authenticator secret' }).waitFor();
      await check(page, 'set up an authenticator app');
      const ownerSecret = (await setup.locator('code.secret').textContent())!.trim();
      await setup.getByLabel('The 6-digit code the app shows now').fill(generateSync({ secret: ownerSecret }));
      await setup.getByRole('button', { name: 'Turn on' }).click();
      const codes = page.getByRole('dialog', { name: 'Authenticator app is on' });
      await codes.getByRole('list', { name: 'Recovery codes' }).waitFor();
      await check(page, 'the recovery codes shown once');
      await codes.getByRole('button', { name: 'I saved the codes' }).click();
      await page.getByText('10 of 10 recovery codes left').waitFor();
      await check(page, 'security');
      await page.getByRole('button', { name: 'Make new recovery codes' }).click();
      const regenerate = page.getByRole('dialog', { name: 'Make new recovery codes?' });
      await regenerate.getByLabel('Your password').fill(account.owner.password);
      await check(page, 'make new recovery codes');
      await regenerate.getByRole('button', { name: 'Make new codes' }).click();
      const newCodes = page.getByRole('dialog', { name: 'New recovery codes' });
      await newCodes.getByRole('list', { name: 'Recovery codes' }).waitFor();
      await check(page, 'the new recovery codes shown once');
      await newCodes.getByRole('button', { name: 'I saved the codes' }).click();
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await page.getByRole('dialog', { name: 'Add a passkey' }).getByLabel('Name').waitFor();
      await check(page, 'add a passkey');
      await page.getByRole('dialog', { name: 'Add a passkey' }).getByRole('button', { name: 'Cancel' }).click();
      const sessions = page.getByRole('region', { name: 'Your sessions' });
      await reachAndClick(sessions.getByRole('button', { name: 'Sign out of this device' }), 'Sign out on a session');
      await page.getByRole('dialog', { name: 'Sign out of this device?' }).waitFor();
      await check(page, 'sign a session out');
      await page.getByRole('dialog', { name: 'Sign out of this device?' }).getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Turn off the authenticator app' }).click();
      const turnOff = page.getByRole('dialog', { name: 'Turn off the authenticator app?' });
      await turnOff.getByLabel('Your password').fill(account.owner.password);
      await check(page, 'turn off the authenticator app');
      await turnOff.getByRole('button', { name: 'Turn off' }).click();
      await page.getByRole('button', { name: 'Set up an authenticator app' }).waitFor();

      // The session's end: the warning a minute before, and the dialog that keeps it (on the page's own clock).
      await page.clock.install();
      await page.reload();
      await page.getByRole('heading', { name: 'Security' }).waitFor();
      // The session's time left, as the page learnt it at its start (its own exchange of the cookie).
      const left = await page.evaluate(async () => {
        const res = await fetch('/api/v1/auth/login/session', { method: 'POST', headers: { 'X-Gatehouse-Session': '1' } });
        return ((await res.json()) as { sessionExpiresIn: number }).sessionExpiresIn * 1000;
      });
      await page.clock.fastForward(left - 59_000);
      const warning = page.getByRole('alert').filter({ hasText: 'Your session ends in less than a minute' });
      await warning.waitFor();
      await check(page, 'the warning before the session ends');
      await warning.getByRole('button', { name: 'Stay signed in' }).click();
      await page.getByRole('dialog', { name: 'Stay signed in' }).getByLabel('Password').waitFor();
      await check(page, 'stay signed in');
      await page.getByRole('dialog', { name: 'Stay signed in' }).getByRole('button', { name: 'Cancel' }).click();
      // The minute runs out: the page stays, with a way to sign in again over it.
      await page.clock.fastForward(60_000);
      const lapsed = page.getByRole('alert').filter({ hasText: 'Your session expired' });
      await lapsed.waitFor();
      await check(page, 'the session expired');
      await lapsed.getByRole('button', { name: 'Sign in again' }).click();
      await page.getByRole('dialog', { name: 'Sign in again' }).getByLabel('Password').waitFor();
      await check(page, 'sign in again');
      expect(problems).toEqual([]);
      await context.close();

      // The pages before sign-in, and those of the links, in a browser of someone else.
      const visitor = await openDashboard(d, '/sign-in', viewport);
      const guest = visitor.page;
      await guest.getByRole('heading', { name: 'Sign in' }).waitFor();
      await check(guest, 'sign in');
      await guest.getByLabel('Email').fill(guarded.email);
      await guest.getByLabel('Password').fill(guarded.password);
      await guest.getByRole('button', { name: 'Sign in', exact: true }).click();
      await guest.getByLabel('Code from your authenticator app').waitFor();
      await check(guest, 'sign in: the second step');
      await guest.getByRole('button', { name: 'Use a recovery code' }).click();
      await guest.getByLabel('Recovery code').fill('wrong-codes');
      await guest.getByRole('button', { name: 'Continue' }).click();
      await guest.getByRole('alert').waitFor();
      await check(guest, 'sign in: a recovery code, refused');
      await guest.getByRole('button', { name: 'Start again' }).click();
      await guest.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
      await guest.getByRole('link', { name: 'Create an account' }).click();
      await guest.getByRole('heading', { name: 'Create an account' }).waitFor();
      await guest.locator('altcha-widget').waitFor();
      await check(guest, 'sign up');
      await guest.goto('/forgot-password');
      await guest.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
      await check(guest, 'forgot password');
      await guest.goto(resetLink.slice(d.base.length));
      await guest.getByRole('heading', { name: 'Set a new password' }).waitFor();
      await check(guest, 'reset password');
      await guest.goto(invitationLink.slice(d.base.length));
      await guest.getByText(/invites you to join/).waitFor();
      await check(guest, 'accept an invitation');
      await guest.goto('/confirm-email#token=ghc_nothing-of-ours');
      await guest.getByRole('heading', { name: 'Confirm your email address' }).waitFor();
      await guest.getByRole('alert').waitFor();
      await check(guest, 'confirm an address');
      await guest.goto('/no-such-page');
      await guest.getByRole('heading', { name: 'Page not found' }).waitFor();
      await check(guest, 'not found');
      expect(visitor.problems).toEqual([]);
      await visitor.context.close();

      expect(seen.length).toBeGreaterThanOrEqual(54);
      expect(findings).toEqual([]);
    }, 240_000);
  }

  for (const viewport of [PHONE, DESKTOP]) {
    it(`logs nothing to the console at ${viewport.width} px, no failed load either, on any page before sign-in or of an OWNER`, async () => {
      // An owner of the same account, and of this test alone: the rate limit counts each user's requests.
      const owner = await account.addUser('OWNER');
      const invitation = await d.t.http
        .post('/api/v1/team/invitations')
        .set('Authorization', `Bearer ${owner.token}`)
        .send({ email: `tour-${randomUUID()}@example.com`, role: 'ANALYST' })
        .expect(201);
      // Strict: any console error or warning, a 4xx or 5xx answer among them, is a problem.
      const { context, page, problems } = await openDashboard(d, '/sign-in', viewport, { strict: true });
      const visited: string[] = [];
      /** A page loaded afresh, shown with its data, and every request it made answered. */
      const visit = async (path: string, ready: (page: Page) => Locator) => {
        await page.goto(path);
        await ready(page).waitFor();
        await page.waitForLoadState('networkidle');
        visited.push(new URL(page.url()).pathname);
      };

      await visit('/sign-in', (p) => p.getByRole('heading', { name: 'Sign in', exact: true }));
      await visit('/sign-up', (p) => p.locator('altcha-widget'));
      await visit('/forgot-password', (p) => p.getByRole('heading', { name: 'Forgot your password?' }));
      await visit(`/accept-invitation#token=${invitation.body.token}`, (p) => p.getByText(/invites you to join/));

      await page.goto('/sign-in');
      await signIn(page, owner);
      await visit('/keys', (p) => row(p, 'Checkout widget'));
      await visit('/webhooks', (p) => p.getByRole('row').filter({ has: p.getByRole('rowheader').filter({ hasText: hook.url }) }));
      await visit(`/webhooks?endpoint=${hook.id}`, (p) => p.locator('ol.deliveries > li').first());
      await visit('/analytics', (p) => p.getByRole('region', { name: 'By API key' }).getByRole('row').nth(1));
      await visit('/team', (p) => row(p, /^developer-/));
      await visit('/team?tab=invitations', (p) => row(p, /^a-rather-long-address/));
      await visit('/audit', (p) => p.getByRole('row').nth(3));
      await visit('/settings', (p) => p.getByRole('button', { name: /^Switch to / }).first());
      await visit('/profile', (p) => p.getByRole('heading', { name: 'Profile' }));
      await visit('/security', (p) => p.getByRole('region', { name: 'Your sessions' }).getByText('This device'));
      await visit('/guide', (p) => p.getByRole('heading', { level: 1, name: 'Protect a form in five minutes' }));
      // Every page of the navigation is in the tour (the API reference is the API's page, not the dashboard's).
      const pages = await page
        .getByRole('navigation', { name: 'Dashboard' })
        .getByRole('link')
        .evaluateAll((links) => links.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
      expect(pages.filter((path) => path !== '/docs' && !visited.includes(path))).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    }, 120_000);
  }
});
