/// <reference lib="dom" />
// Code in page.evaluate runs in the browser.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { eventually } from '../utils/eventually';
import { startInbox, Inbox, tokenIn } from '../utils/smtp';
import {
  axeViolations,
  Dashboard,
  describeInBrowser,
  JWT_IN_URL,
  openDashboard,
  sessionCookieOf,
  sidewaysScroll,
  signIn,
  startDashboard,
} from '../utils/dashboard';
import { createAccount, TestAccount } from '../utils/test-app';

const NEW_PASSWORD = 'a brand new long passphrase';

const row = (page: Page, name: string | RegExp) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });
const login = (d: Dashboard, email: string, password: string) => d.t.http.post('/api/v1/auth/login').send({ email, password });
/** Shows the page's tab `name` ("Members", "Pending invitations"), its count after it. */
const showTab = (page: Page, name: string) =>
  page
    .getByRole('tablist', { name: 'Team' })
    .getByRole('tab', { name: new RegExp(`^${name}`) })
    .click();

/** Sets a password on a link page (accept-invitation, reset-password) and submits it. */
async function choosePassword(page: Page, password: string, submit: string): Promise<void> {
  await page.getByLabel('New password', { exact: true }).fill(password);
  await page.getByLabel('Repeat the new password').fill(password);
  await page.getByRole('button', { name: submit }).click();
}

/** The dashboard's Team page in Chromium, against the real app (docs/DASHBOARD.md). */
describeInBrowser('dashboard: team, in Chromium', () => {
  let d: Dashboard;
  let account: TestAccount;

  beforeAll(async () => {
    d = await startDashboard();
    account = await createAccount(d.t);
  }, 120_000);
  afterAll(() => d?.close());

  it('invites by a one-time link that a new browser follows to join with the role; changes the role, resets the password, removes', async () => {
    const { context, page, problems, urls } = await openDashboard(d, '/team');
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await signIn(page, account.owner);
    await page.getByRole('heading', { name: 'Team' }).waitFor();
    await row(page, /^owner-/).waitFor();
    await page.getByRole('tab', { name: 'Pending invitations (0)' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // The only owner: not demoted, not removed, and the page says why.
    const me = row(page, /^owner-/);
    expect(await me.getByRole('button', { name: `Change role of ${account.owner.email}` }).isDisabled()).toBe(true);
    expect(await me.getByRole('button', { name: `Remove ${account.owner.email}` }).isDisabled()).toBe(true);
    await me.getByText('The last owner cannot be demoted or removed').waitFor();

    const email = `joiner-${randomUUID()}@example.com`;
    await page.getByRole('button', { name: 'Invite' }).click();
    const invite = page.getByRole('dialog', { name: 'Invite a member' });
    await invite.getByText('replaces its pending invitation').waitFor();
    await invite.getByLabel('Email').fill(email);
    await invite.getByLabel('Role').selectOption('DEVELOPER');
    expect(await axeViolations(page)).toEqual([]);
    await invite.getByRole('button', { name: 'Send invitation' }).click();

    const invited = page.getByRole('dialog', { name: `Invitation for ${email}` });
    const link = (await invited.getByTestId('one-time-link').textContent())!;
    expect(link).toMatch(new RegExp(`^${d.base}/accept-invitation#token=ghi_[A-Za-z0-9_-]+$`));
    await invited.getByText('This link is shown once').waitFor();
    // Until when: the expiry the server holds, in the browser's locale and time zone.
    const { expiresAt } = await d.t.prisma.invitation.findFirstOrThrow({ where: { email } });
    const until = await page.evaluate(
      (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
      expiresAt.toISOString(),
    );
    await invited.getByText(`it works once, until ${until}.`).waitFor();
    await invited.getByRole('button', { name: 'Copy link' }).click();
    await invited.getByText('Copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    expect(await axeViolations(page)).toEqual([]);
    await invited.getByRole('button', { name: 'Done' }).click();
    // Behind the dialog, the page went to the pending invitations, where the new one is.
    await page.waitForURL((url) => url.search === '?tab=invitations');
    const pending = row(page, email);
    await pending.waitFor();
    expect(await pending.textContent()).toContain(account.owner.email); // invited by
    expect(await pending.textContent()).not.toContain(link.split('#token=')[1]);

    // Before a password: whom the link joins, as whom, invited by whom, and the address to sign in with,
    // on a phone as on a desktop (opening the link does not use it up).
    const { name: accountName } = await d.t.prisma.account.findUniqueOrThrow({ where: { id: account.id } });
    const expectInvitationNamed = async (invitee: Page) => {
      await invitee.getByRole('heading', { name: 'Join your team' }).waitFor();
      await invitee.waitForURL((url) => url.hash === '' && url.pathname === '/accept-invitation'); // the token left the address bar
      const named = invitee.getByText(/invites you to join/);
      await named.waitFor(); // in view, not only in the page
      const invitation = await named.textContent();
      expect(invitation).toContain(`${account.owner.email} invites you to join ${accountName} as DEVELOPER`);
      expect(invitation).toContain(`you then sign in as ${email}`);
      expect(await axeViolations(invitee)).toEqual([]);
      expect(await sidewaysScroll(invitee)).toEqual([]);
    };
    const onPhone = await openDashboard(d, link.slice(d.base.length), { width: 390, height: 844 });
    await expectInvitationNamed(onPhone.page);
    expect(onPhone.problems).toEqual([]);
    await onPhone.context.close();

    // Someone else's browser follows the link: a password, then signed in with the invited role.
    const joiner = await openDashboard(d, link.slice(d.base.length));
    await expectInvitationNamed(joiner.page);
    await joiner.page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await joiner.page.getByLabel('Repeat the new password').fill('something else entirely');
    await joiner.page.getByRole('button', { name: 'Join' }).click();
    await joiner.page.getByRole('alert').getByText('The two passwords differ').waitFor();
    await choosePassword(joiner.page, NEW_PASSWORD, 'Join');
    await joiner.page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    await joiner.page.getByRole('banner').getByText(email).waitFor();
    await joiner.page.getByRole('banner').getByText('DEVELOPER', { exact: true }).waitFor();
    const user = await d.t.prisma.user.findUniqueOrThrow({ where: { email } });
    expect(user).toMatchObject({ role: 'DEVELOPER', accountId: account.id });
    expect(joiner.problems).toEqual([]);
    await joiner.context.close();

    await page.reload();
    await page.getByText('No pending invitations.').waitFor();
    await showTab(page, 'Members');
    await row(page, email).getByRole('cell', { name: 'DEVELOPER' }).waitFor();

    // Role change.
    await row(page, email)
      .getByRole('button', { name: `Change role of ${email}` })
      .click();
    const roleDialog = page.getByRole('dialog', { name: `Change role of ${email}` });
    await roleDialog.getByLabel('Role').selectOption('ANALYST');
    expect(await axeViolations(page)).toEqual([]);
    await roleDialog.getByRole('button', { name: 'Save role' }).click();
    await row(page, email).getByRole('cell', { name: 'ANALYST' }).waitFor();
    expect((await d.t.prisma.user.findUniqueOrThrow({ where: { email } })).role).toBe('ANALYST');

    // Password reset: a link to pass on; the new password works, the old one no longer.
    await row(page, email)
      .getByRole('button', { name: `Reset password of ${email}` })
      .click();
    const resetDialog = page.getByRole('dialog', { name: `Reset password of ${email}?` });
    expect(await axeViolations(page)).toEqual([]);
    await resetDialog.getByRole('button', { name: 'Make reset link' }).click();
    const issued = page.getByRole('dialog', { name: `Password reset for ${email}` });
    const resetLink = (await issued.getByTestId('one-time-link').textContent())!;
    expect(resetLink).toMatch(new RegExp(`^${d.base}/reset-password#token=ghr_[A-Za-z0-9_-]+$`));
    await issued.getByText('This link is shown once').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await issued.getByRole('button', { name: 'Done' }).click();

    const resetter = await openDashboard(d, resetLink.slice(d.base.length));
    await resetter.page.getByRole('heading', { name: 'Set a new password' }).waitFor();
    await resetter.page.waitForURL((url) => url.hash === '');
    expect(await axeViolations(resetter.page)).toEqual([]);
    const newer = 'yet another long passphrase';
    await choosePassword(resetter.page, newer, 'Set password and sign in');
    await resetter.page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    expect(resetter.problems).toEqual([]);
    await resetter.context.close();
    expect((await login(d, email, NEW_PASSWORD)).status).toBe(401);
    expect((await login(d, email, newer)).status).toBe(200);

    // Removal.
    await row(page, email)
      .getByRole('button', { name: `Remove ${email}` })
      .click();
    const removeDialog = page.getByRole('dialog', { name: `Remove ${email}?` });
    expect(await axeViolations(page)).toEqual([]);
    await removeDialog.getByRole('button', { name: 'Remove member' }).click();
    await row(page, email).waitFor({ state: 'detached' });
    expect(await d.t.prisma.user.findUnique({ where: { email } })).toBeNull();
    expect((await login(d, email, newer)).status).toBe(401);

    const secrets = [(await sessionCookieOf(context)).value, link.split('#token=')[1], resetLink.split('#token=')[1]];
    expect(urls.filter((u) => JWT_IN_URL.test(u) || secrets.some((s) => u.includes(s)))).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('revokes an invitation after a confirmation: its link then fails with a clear message', async () => {
    const { context, page, problems } = await openDashboard(d, '/team');
    await signIn(page, account.owner);
    const email = `revoked-${randomUUID()}@example.com`;
    await page.getByRole('button', { name: 'Invite' }).click();
    const invite = page.getByRole('dialog', { name: 'Invite a member' });
    await invite.getByLabel('Email').fill(email);
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    const link = (await page.getByTestId('one-time-link').textContent())!;
    await page.getByRole('button', { name: 'Done' }).click();

    await row(page, email)
      .getByRole('button', { name: `Revoke the invitation of ${email}` })
      .click();
    const revoke = page.getByRole('dialog', { name: `Revoke the invitation of ${email}?` });
    expect(await axeViolations(page)).toEqual([]);
    await revoke.getByRole('button', { name: 'Cancel' }).click();
    await row(page, email).waitFor(); // still there
    await row(page, email)
      .getByRole('button', { name: `Revoke the invitation of ${email}` })
      .click();
    await revoke.getByRole('button', { name: 'Revoke invitation' }).click();
    await row(page, email).waitFor({ state: 'detached' });
    expect(await d.t.prisma.invitation.findFirstOrThrow({ where: { email } })).toMatchObject({ revokedAt: expect.any(Date) });

    const joiner = await openDashboard(d, link.slice(d.base.length));
    await choosePassword(joiner.page, NEW_PASSWORD, 'Join');
    await joiner.page.getByRole('alert').getByText('This invitation cannot be used any more').waitFor();
    expect(await axeViolations(joiner.page)).toEqual([]);
    expect(await d.t.prisma.user.findUnique({ where: { email } })).toBeNull();
    expect(joiner.problems).toEqual([]);
    await joiner.context.close();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('tells who joins with an address that already has a user to sign in (409)', async () => {
    const existing = await account.addUser('ANALYST');
    const res = await d.t.http
      .post('/api/v1/team/invitations')
      .set('Authorization', `Bearer ${account.owner.token}`)
      .send({ email: existing.email, role: 'DEVELOPER' })
      .expect(201);
    const { page, context, problems } = await openDashboard(d, `/accept-invitation#token=${res.body.token}`);
    await choosePassword(page, NEW_PASSWORD, 'Join');
    await page.getByRole('alert').getByText('This address already has a Gatehouse user').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('keeps a signed-in tab signed in when it opens a dead invitation link: that 401 is the invitation’s, not the session’s', async () => {
    const { page, context, problems } = await openDashboard(d, '/team');
    await signIn(page, account.owner);
    await page.goto('/accept-invitation#token=ghi_nothing-of-ours');
    await page.getByRole('alert').getByText('This invitation cannot be used any more').waitFor();
    await choosePassword(page, NEW_PASSWORD, 'Join');
    await page.getByRole('alert').getByText('This invitation cannot be used any more').waitFor();
    await page.goto('/team');
    await page.getByRole('heading', { name: 'Team' }).waitFor();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows the API’s refusal in the dialog when the page is out of date (409: the last owner)', async () => {
    const other = await createAccount(d.t);
    const second = await other.addUser('OWNER');
    const { context, page, problems } = await openDashboard(d, '/team');
    await signIn(page, other.owner);
    const mine = row(page, new RegExp(`^${other.owner.email}`));
    await mine.getByRole('button', { name: `Change role of ${other.owner.email}` }).click();
    // Meanwhile the other owner leaves: this one is now the last.
    await d.t.prisma.user.delete({ where: { id: second.id } });
    const dialog = page.getByRole('dialog', { name: `Change role of ${other.owner.email}` });
    await dialog.getByText('This is your own role').waitFor();
    await dialog.getByLabel('Role').selectOption('ADMIN');
    await dialog.getByRole('button', { name: 'Save role' }).click();
    await dialog
      .getByRole('alert')
      .getByText(/last OWNER cannot be demoted/)
      .waitFor();
    expect((await d.t.prisma.user.findUniqueOrThrow({ where: { id: other.owner.id } })).role).toBe('OWNER');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('offers an ADMIN no control over owners: no OWNER role to give, no owner row or owner invitation to touch', async () => {
    const admin = await account.addUser('ADMIN');
    const developer = await account.addUser('DEVELOPER');
    const ownerInvite = `future-owner-${randomUUID()}@example.com`;
    await d.t.http
      .post('/api/v1/team/invitations')
      .set('Authorization', `Bearer ${account.owner.token}`)
      .send({ email: ownerInvite, role: 'OWNER' })
      .expect(201);
    const { context, page, problems } = await openDashboard(d, '/team');
    await signIn(page, admin);
    const owner = row(page, account.owner.email);
    await owner.getByText('Only an owner changes, removes or resets an owner.').waitFor();
    expect(await owner.getByRole('button').count()).toBe(0);
    // Other members: every control; one's own password is changed on the profile page.
    const dev = row(page, developer.email);
    for (const name of [`Change role of ${developer.email}`, `Reset password of ${developer.email}`, `Remove ${developer.email}`]) {
      await dev.getByRole('button', { name }).waitFor();
    }
    await row(page, new RegExp(`^${admin.email}`))
      .getByRole('link', { name: /yours, on your profile/ })
      .waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await showTab(page, 'Pending invitations');
    await row(page, ownerInvite).getByText('Only an owner revokes it').waitFor();
    expect(await row(page, ownerInvite).getByRole('button').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await showTab(page, 'Members');

    await dev.getByRole('button', { name: `Change role of ${developer.email}` }).click();
    const roles = page.getByRole('dialog').getByLabel('Role');
    expect(await roles.locator('option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))).toEqual([
      'ADMIN',
      'DEVELOPER',
      'ANALYST',
    ]);
    await page.getByRole('dialog').getByText('Only an owner can make someone an owner.').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Invite' }).click();
    expect(
      await page
        .getByRole('dialog', { name: 'Invite a member' })
        .getByLabel('Role')
        .locator('option')
        .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)),
    ).not.toContain('OWNER');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a DEVELOPER the members, read-only', async () => {
    const developer = await account.addUser('DEVELOPER');
    const { context, page, problems, urls } = await openDashboard(d, '/team');
    await signIn(page, developer);
    await row(page, account.owner.email).waitFor();
    await page.getByText('Owners and admins invite people and change roles').waitFor();
    expect(await page.getByRole('main').getByRole('button').count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Pending invitations' }).count()).toBe(0);
    expect(urls.filter((u) => u.includes('/team/invitations'))).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describeInBrowser('dashboard: team, with e-mail (SMTP_URL), in Chromium', () => {
  let inbox: Inbox;
  let d: Dashboard;
  let account: TestAccount;

  beforeAll(async () => {
    inbox = await startInbox();
    d = await startDashboard({
      SMTP_URL: inbox.url,
      MAIL_FROM: 'Gatehouse <no-reply@gatehouse.test>',
      PUBLIC_URL: 'https://gatehouse.example.com',
    });
    account = await createAccount(d.t);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
    await inbox?.close();
  });

  it('says an invitation was e-mailed, and the e-mailed link works in the browser', async () => {
    const { context, page, problems } = await openDashboard(d, '/team');
    await signIn(page, account.owner);
    const email = `mailed-${randomUUID()}@example.com`;
    await page.getByRole('button', { name: 'Invite' }).click();
    const invite = page.getByRole('dialog', { name: 'Invite a member' });
    await invite.getByLabel('Email').fill(email);
    await invite.getByLabel('Role').selectOption('ANALYST');
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    const invited = page.getByRole('dialog', { name: `Invitation for ${email}` });
    await invited.getByText(`e-mailed to ${email}`).waitFor();
    expect(await invited.getByTestId('one-time-link').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await invited.getByRole('button', { name: 'Done' }).click();

    const mail = await eventually(() => inbox.messages.find((m) => JSON.stringify(m.to).includes(email)) ?? false);
    const link = new URL(/https:\/\/gatehouse\.example\.com\/\S+/.exec(mail.text!)![0]);
    expect(link.pathname).toBe('/accept-invitation');
    expect(link.hash).toBe(`#token=${tokenIn(mail)}`);
    const joiner = await openDashboard(d, link.pathname + link.hash);
    await choosePassword(joiner.page, NEW_PASSWORD, 'Join');
    await joiner.page.getByRole('banner').getByText('ANALYST', { exact: true }).waitFor();
    expect(joiner.problems).toEqual([]);
    await joiner.context.close();

    // A member's reset is e-mailed too: the page says so and shows no link.
    await page.reload();
    await showTab(page, 'Members');
    await row(page, email)
      .getByRole('button', { name: `Reset password of ${email}` })
      .click();
    await page.getByRole('button', { name: 'Make reset link' }).click();
    await page
      .getByRole('dialog', { name: `Password reset for ${email}` })
      .getByText(`A reset link was e-mailed to ${email}`)
      .waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});
