/// <reference lib="dom" />
// Code in page.evaluate runs in the browser.
import { randomUUID } from 'node:crypto';
import { eventually } from '../utils/eventually';
import { startInbox, Inbox } from '../utils/smtp';
import { axeViolations, Dashboard, describeInBrowser, openDashboard, startDashboard } from '../utils/dashboard';
import { createAccount } from '../utils/test-app';

const NEW_PASSWORD = 'a brand new long passphrase';

/**
 * The pages reached from e-mails and from sign-in (sign-up, forgot password, the token links) in
 * Chromium, against the real app (docs/DASHBOARD.md). Team invitations and resets: dashboard-team.
 */
describeInBrowser('dashboard: sign-up and e-mail link pages, without e-mail and with sign-up closed (the defaults)', () => {
  let d: Dashboard;

  beforeAll(async () => {
    d = await startDashboard();
  }, 120_000);
  afterAll(() => d?.close());

  it('says sign-up is closed and leads to sign-in, which offers no sign-up', async () => {
    const { context, page, problems } = await openDashboard(d, '/sign-up');
    await page.getByText('This Gatehouse takes no sign-ups').waitFor();
    expect(await page.getByLabel('Email').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByRole('link', { name: 'Forgot your password?' }).waitFor();
    expect(await page.getByRole('link', { name: 'Create an account' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it.each([
    [1280, 860],
    [390, 844],
  ])(
    'at %i px: asks the deployment’s configuration once on the sign-in page, not a sign-up challenge, and logs nothing in the console',
    async (width, height) => {
      // Strict: a failed load, an error or a warning in the console is a problem too.
      const { context, page, problems, urls } = await openDashboard(d, '/sign-in', { width, height }, { strict: true });
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.waitForLoadState('networkidle');
      urls.length = 0; // a load of its own, from the start
      await page.reload();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(urls.filter((url) => url.includes('/auth/signup/challenge'))).toEqual([]);
      expect(urls.filter((url) => new URL(url).pathname.startsWith('/api/'))).toEqual([`${d.base}/api/v1/config`]);
      expect(problems).toEqual([]);
      await context.close();
    },
  );

  it('answers a browser at an unknown path, or a page path in other case, with the not-found page (status 404) and a way back', async () => {
    const { context, page, problems } = await openDashboard(d, '/sign-in');
    for (const path of ['/nope', '/KEYS', '/keys/extra']) {
      const response = await page.goto(path);
      expect({ path, status: response?.status() }).toEqual({ path, status: 404 });
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
    }
    await page.getByRole('link', { name: 'Go to the dashboard' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('tells who forgot their password, before the form, to ask an owner or admin when there is no e-mail', async () => {
    const { context, page, problems } = await openDashboard(d, '/sign-in');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
    // Said before anything is typed, with no form that could not work.
    await page.getByText('This Gatehouse sends no e-mail').waitFor();
    await page.getByText(/Ask an owner or admin of your team to reset your password/).waitFor();
    expect(await page.getByRole('button', { name: 'Send the link' }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('explains a link without a token, and a used or unknown token, and takes the token out of the address bar', async () => {
    const { context, page, problems } = await openDashboard(d, '/reset-password');
    await page.getByRole('alert').getByText('This address has no reset token in it').waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await page.goto('/reset-password#token=ghr_nothing-of-ours');
    await page.waitForURL((url) => url.pathname === '/reset-password' && url.hash === '');
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByLabel('Repeat the new password').fill('short');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    // The browser holds to the server's rule (12 to 256 characters) before anything is sent.
    expect(await page.getByLabel('New password', { exact: true }).evaluate((el) => (el as HTMLInputElement).validity.tooShort)).toBe(true);
    expect(await page.getByLabel('New password', { exact: true }).getAttribute('maxlength')).toBe('256');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('alert').getByText('This reset link cannot be used any more').waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await page.goto('/accept-invitation#token=ghi_nothing-of-ours');
    await page.getByRole('heading', { name: 'Join your team' }).waitFor();
    await page.getByRole('alert').getByText('This invitation cannot be used any more').waitFor(); // said before a password is typed
    expect(await axeViolations(page)).toEqual([]);

    await page.goto('/confirm-email#token=anything');
    await page.getByRole('alert').getByText('This Gatehouse takes no sign-ups').waitFor();
    expect(new URL(page.url()).hash).toBe('');
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describeInBrowser('dashboard: sign-up open, with e-mail (SIGNUP=open, SMTP_URL), in Chromium', () => {
  let inbox: Inbox;
  let d: Dashboard;

  beforeAll(async () => {
    inbox = await startInbox();
    d = await startDashboard({
      SIGNUP: 'open',
      SMTP_URL: inbox.url,
      MAIL_FROM: 'Gatehouse <no-reply@gatehouse.test>',
      PUBLIC_URL: 'https://gatehouse.example.com',
    });
  }, 120_000);
  afterAll(async () => {
    await d?.close();
    await inbox?.close();
  });

  const mailTo = (email: string) => eventually(() => inbox.messages.find((m) => JSON.stringify(m.to).includes(email)) ?? false);
  /** The path and fragment of the mail's link: it points at PUBLIC_URL, the test's app listens elsewhere. */
  const linkIn = (text: string) => {
    const url = new URL(/https:\/\/gatehouse\.example\.com\/\S+/.exec(text)![0]);
    return url.pathname + url.hash;
  };

  it('signs up with the proof of work solved in the browser; the e-mailed link confirms and signs in the new OWNER', async () => {
    const { context, page, problems, urls } = await openDashboard(d, '/sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    // The box to check is drawn: ALTCHA's colours resolve in the dashboard's build (its border was invalid, so no box showed).
    const box = page.getByRole('checkbox', { name: "I'm not a robot" });
    expect(await box.evaluate((el) => [getComputedStyle(el).borderTopStyle, getComputedStyle(el).borderTopColor])).toEqual([
      'solid',
      expect.stringMatching(/^(rgb|oklch)\(/),
    ]);
    const email = `founder-${randomUUID()}@example.com`;
    const name = `Founders ${randomUUID()}`;
    await page.getByLabel('Email').fill(email); // focusing the form starts the puzzle
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByLabel('Account name').fill(name);
    await page.getByText('Verified').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('status').getByText('your sign-up is in').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    // The solver ran in a worker built as a file of this origin (the CSP allows no blob: worker).
    expect(urls.some((u) => new URL(u).pathname.startsWith('/assets/pbkdf2-'))).toBe(true);
    expect(await d.t.prisma.account.findFirst({ where: { name } })).not.toBeNull();

    // Not before the address is confirmed.
    await page.getByRole('link', { name: 'Go to sign-in' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').getByText('Confirm your email address first').waitFor();

    const mail = await mailTo(email);
    const confirm = await openDashboard(d, linkIn(mail.text!));
    await confirm.page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    await confirm.page.getByRole('banner').getByText('OWNER', { exact: true }).waitFor();
    await confirm.page.getByRole('banner').getByText(name).waitFor();
    expect(new URL(confirm.page.url()).hash).toBe('');
    expect(confirm.problems).toEqual([]);
    await confirm.context.close();

    // Confirmed: the password signs in, here too.
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('judges the sign-up challenge by Gatehouse’s clock: a browser 10 minutes ahead never reads it expired; one 10 minutes behind lets the solution go once Gatehouse’s 5 minutes are up', async () => {
    /** The sign-up page, this browser's clock `minutes` off, filled in; `saidExpired`: whether ALTCHA's box ever showed "expired". */
    const emails: string[] = [];
    const signUpAt = async (minutes: number) => {
      const opened = await openDashboard(d, '/sign-in');
      await opened.page.clock.install({ time: Date.now() + minutes * 60_000 });
      await opened.page.addInitScript(() => {
        const seen = globalThis as unknown as { saidExpired: boolean };
        seen.saidExpired = false;
        // What the next frame paints (a state set and set back within one task is never seen).
        let frame = false;
        new MutationObserver(() => {
          if (frame) return;
          frame = true;
          requestAnimationFrame(() => {
            frame = false;
            if (document.querySelector('altcha-widget')?.textContent?.includes('Verification expired')) seen.saidExpired = true;
          });
        }).observe(document, { subtree: true, childList: true, characterData: true });
      });
      await opened.page.goto('/sign-up');
      const email = `clock-${randomUUID()}@example.com`;
      emails.push(email);
      await opened.page.getByLabel('Email').fill(email);
      await opened.page.getByLabel('Password').fill(NEW_PASSWORD);
      await opened.page.getByLabel('Account name').fill(`Clock ${randomUUID()}`);
      await opened.page.getByText('Verified').waitFor();
      const saidExpired = () => opened.page.evaluate(() => (globalThis as unknown as { saidExpired: boolean }).saidExpired);
      return { ...opened, saidExpired };
    };

    const ahead = await signUpAt(10);
    expect(await ahead.saidExpired()).toBe(false);
    await ahead.page.getByRole('button', { name: 'Create account' }).click();
    await ahead.page.getByRole('status').getByText('your sign-up is in').waitFor();
    expect(ahead.problems).toEqual([]);
    await ahead.context.close();

    const behind = await signUpAt(-10);
    const signUps: string[] = [];
    behind.page.on('request', (req) => req.method() === 'POST' && signUps.push(new URL(req.url()).pathname));
    await behind.page.clock.fastForward('05:01');
    await behind.page.getByText('Verification expired').waitFor();
    // The box is unchecked again, so the browser holds the form back; checked again, a new solution goes.
    await behind.page.getByRole('button', { name: 'Create account' }).click();
    await behind.page.getByRole('checkbox', { name: "I'm not a robot" }).press('Space');
    await behind.page.getByText('Verified').waitFor();
    await behind.page.getByRole('button', { name: 'Create account' }).click();
    await behind.page.getByRole('status').getByText('your sign-up is in').waitFor();
    expect(signUps).toEqual(['/api/v1/auth/signup']);
    expect(behind.problems).toEqual([]);
    await behind.context.close();
    // Confirmed, as their owners would: the database may be shared with the suite that purges unconfirmed sign-ups.
    await d.t.prisma.user.updateMany({ where: { email: { in: emails } }, data: { emailConfirmedAt: new Date() } });
  });

  it('e-mails a forgotten password’s link, which sets a new one', async () => {
    const account = await createAccount(d.t);
    const { context, page, problems } = await openDashboard(d, '/forgot-password');
    await page.getByLabel('Email').fill(account.owner.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('status').getByText('If an account has this address, an e-mail is on its way.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    const mail = await mailTo(account.owner.email);
    await page.goto(linkIn(mail.text!));
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    expect((await d.t.http.post('/api/v1/auth/login').send({ email: account.owner.email, password: NEW_PASSWORD })).status).toBe(200);
    expect((await d.t.http.post('/api/v1/auth/login').send({ email: account.owner.email, password: account.owner.password })).status).toBe(
      401,
    );
    expect(problems).toEqual([]);
    await context.close();
  });
});
