import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, browserUnavailable, launchChromium } from '../utils/browser';
import { createAccount, startApp, TestApp } from '../utils/test-app';
import { buildWidget } from '../utils/widget-build';
import { noncesIssued } from '../utils/widget';

const ARTIFACTS = resolve(__dirname, '../../test-artifacts');
const UI_TIMEOUT = 15_000;
/** Waiting for a solve at the plan's default difficulty: generous for a loaded CI machine; no assertion on the time. */
const SOLVE_TIMEOUT = 90_000;

const unavailable = browserUnavailable();
if (unavailable) console.warn(`Widget browser e2e test skipped: ${unavailable}`);
const describeInBrowser = unavailable ? describe.skip : describe;

/**
 * The CSP docs/PROTECT-A-FORM.md gives customers for the widget (script-src and connect-src name
 * Gatehouse, worker-src blob:, nothing for styles), plus 'self' for the pages' own files and fetches:
 * every page below is served with it, so the widget is proven to work under it.
 */
const customerCsp = (api: string) =>
  [
    "default-src 'none'",
    `script-src 'self' ${api}`,
    `connect-src 'self' ${api}`,
    'worker-src blob:',
    "style-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
  ].join('; ');

/** A customer's sign-up page: the documented snippet (one script tag, one element with data-key in the form). */
const signupPage = (api: string, widgetKey: string, auto = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign up</title>
<link rel="stylesheet" href="/site.css">
<script src="/recorder.js"></script>
<script src="${api}/widget/v1/gatehouse.js" defer></script>
</head><body><h1>Sign up</h1>
<form action="/signup" method="post">
  <label>Email <input type="email" name="email" required></label>
  <div class="gatehouse-widget" data-key="${widgetKey}"${auto && ` data-auto="${auto}"`}></div>
  <button>Create account</button>
</form></body></html>`;

/** A bot's page: it asks for a challenge and sends a made-up solution instead of solving it. */
const skipperPage = (api: string, widgetKey: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Skipper</title>
<script src="/skipper.js" data-api="${api}" data-key="${widgetKey}" defer></script></head>
<body><pre id="result"></pre></body></html>`;

/** A single-page app: it adds its form later, renders the widget with Gatehouse.render and sends the form itself. */
const spaPage = (api: string, widgetKey: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>App</title>
<script src="/recorder.js"></script>
<script src="${api}/widget/v1/gatehouse.js" defer></script>
<script src="/spa.js" data-key="${widgetKey}" defer></script>
</head><body><button id="open">Sign up</button><main></main><pre id="result"></pre></body></html>`;

/** The app's script: the widget's nonce field is named by data-field; the form goes out as fetch(new FormData(form)). */
const SPA = `const { key } = document.currentScript.dataset;
document.getElementById('open').addEventListener('click', () => {
  const form = document.createElement('form');
  form.innerHTML = '<label>Email <input type="email" name="email" value="app@example.com"></label><div class="gatehouse-widget"></div>';
  form.querySelector('.gatehouse-widget').dataset.key = key;
  form.querySelector('.gatehouse-widget').dataset.field = 'bot-check';
  document.querySelector('main').append(form);
  Gatehouse.render(form.querySelector('.gatehouse-widget'));
  form.addEventListener('gatehouse:verified', async () => {
    const res = await fetch('/signup?field=bot-check', {
      method: 'POST', headers: { Accept: 'application/json' }, body: new URLSearchParams(new FormData(form)),
    });
    const out = document.getElementById('result');
    out.textContent = await res.text();
    out.dataset.done = 'true';
  });
});`;

/** Records, for the test, what the widget tells the page: its events and any CSP violation. */
const RECORDER = `window.recorded = { events: [], cspViolations: [] };
document.addEventListener('securitypolicyviolation', (e) => recorded.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
for (const type of ['gatehouse:verified', 'gatehouse:error'])
  document.addEventListener(type, (e) => recorded.events.push({ type, target: e.target.className, detail: e.detail }));`;

/** The skipper's script: a wrong number (checked to be wrong with one hash), never a search. */
const SKIPPER = `(async () => {
  const { api, key } = document.currentScript.dataset;
  const headers = { 'X-Api-Key': key };
  const challenge = await (await fetch(api + '/api/v1/widget/challenge', { headers })).json();
  const hash = async (n) => [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(challenge.salt + n)))]
    .map((b) => b.toString(16).padStart(2, '0')).join('');
  const number = (await hash(0)) === challenge.challenge ? 1 : 0;
  const altcha = btoa(JSON.stringify({ ...challenge, number }));
  const res = await fetch(api + '/api/v1/widget/nonces', {
    method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ altcha }),
  });
  const out = document.getElementById('result');
  out.textContent = JSON.stringify({ status: res.status, body: await res.json() });
  out.dataset.done = 'true';
})();`;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as AddressInfo).port;
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((done, fail) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => done(body));
    req.on('error', fail);
  });

interface Verdict {
  readonly valid: boolean;
  readonly reason?: string;
  readonly issuedAt?: string;
  readonly hostname?: string;
}

interface SignupAnswer {
  readonly fields: string[];
  readonly verdict: Verdict;
}

describeInBrowser('the widget script on a customer page, in Chromium (docs/PROTECT-A-FORM.md)', () => {
  let t: TestApp;
  let api: string;
  let allowedSite: string;
  let otherSite: string;
  const sites: Server[] = [];
  let ownerToken: string;
  let widgetKey: string;
  let verifyKey: string;
  let browser: Browser | undefined;
  /** What reached the API, preflights included (the browser does not show those to the page). */
  const received: string[] = [];

  /**
   * The customer's site: the sign-up page, its assets, and the form's handler, which checks the
   * nonce with Gatehouse as docs/PROTECT-A-FORM.md shows (server to server, with a verify key).
   */
  async function customerSite(): Promise<{ server: Server; port: number }> {
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'Content-Type': `${type}; charset=utf-8`, ...headers }).end(body);
      const html = (body: string) => send(200, 'text/html', body, { 'Content-Security-Policy': customerCsp(api) });
      if (req.method === 'GET' && req.url === '/') return html(signupPage(api, widgetKey));
      if (req.method === 'GET' && req.url === '/on-submit') return html(signupPage(api, widgetKey, 'onsubmit'));
      if (req.method === 'GET' && req.url === '/skipper') return html(skipperPage(api, widgetKey));
      if (req.method === 'GET' && req.url === '/app') return html(spaPage(api, widgetKey));
      if (req.method === 'GET' && req.url === '/spa.js') return send(200, 'text/javascript', SPA);
      if (req.method === 'GET' && req.url === '/site.css') return send(200, 'text/css', 'body{font:16px system-ui,sans-serif;margin:24px}');
      if (req.method === 'GET' && req.url === '/recorder.js') return send(200, 'text/javascript', RECORDER);
      if (req.method === 'GET' && req.url === '/skipper.js') return send(200, 'text/javascript', SKIPPER);
      if (req.method === 'POST' && req.url?.startsWith('/signup')) {
        // The nonce's field: `gatehouse-nonce` unless the page's data-field named another one.
        const field = new URL(req.url, 'http://site').searchParams.get('field') ?? 'gatehouse-nonce';
        void readBody(req).then(async (body) => {
          const form = new URLSearchParams(body);
          const check = await fetch(`${api}/api/v1/nonces/verify`, {
            method: 'POST',
            headers: { 'X-Api-Key': verifyKey, 'Content-Type': 'application/json' },
            body: JSON.stringify({ nonce: form.get(field) ?? '' }),
          });
          const answer: SignupAnswer = { fields: [...form.keys()], verdict: (await check.json()) as Verdict };
          const status = answer.verdict.valid ? 200 : 403;
          if (req.headers.accept === 'application/json') send(status, 'application/json', JSON.stringify(answer));
          else send(status, 'text/html', `<!doctype html><pre id="answer">${JSON.stringify(answer)}</pre>`);
        });
        return;
      }
      send(404, 'text/plain', 'not found');
    });
    sites.push(server);
    return { server, port: await listen(server) };
  }

  beforeAll(async () => {
    buildWidget();
    t = await startApp();
    const server = t.app.getHttpServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    server.on('request', (req: { method: string; url: string }) => received.push(`${req.method} ${req.url}`));
    // Two customer sites on other ports: other origins than the API and than each other. The
    // allowed one is reached as localhost, so the nonce's hostname is told apart from the API's host.
    allowedSite = `http://localhost:${(await customerSite()).port}`;
    otherSite = `http://127.0.0.1:${(await customerSite()).port}`;

    const account = await createAccount(t);
    ownerToken = account.owner.token;
    // The plan's default difficulty (null), not the tests' easy one: the default must solve in a browser.
    ({ key: widgetKey } = await account.createKey({ scopes: ['widget'], allowedOrigins: [allowedSite], challengeMaxNumber: null }));
    ({ key: verifyKey } = await account.createKey({ scopes: ['verify'] }));
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    try {
      await browser?.close();
      await Promise.all(sites.map((s) => new Promise((done) => s.close(done))));
    } finally {
      await t?.close();
    }
  });

  /**
   * A fresh browser profile per page (no cached preflight or script from another test), its
   * screenshot kept in test-artifacts/, and every uncaught page error collected.
   */
  async function withPage<T>(screenshot: string, use: (page: Page, pageErrors: string[]) => Promise<T>): Promise<T> {
    const context: BrowserContext = await browser!.newContext({ viewport: { width: 900, height: 620 } });
    // No context.route(): with interception on, Playwright answers CORS preflights itself.
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    received.length = 0;
    try {
      return await use(page, pageErrors);
    } finally {
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, screenshot) }).catch(() => undefined);
      await context.close();
    }
  }

  type Recorded = { events: Array<{ type: string; target: string; detail: Record<string, unknown> }>; cspViolations: string[] };
  // globalThis, not window: this file is compiled without the DOM library. (A string page function
  // would not do for waitForFunction: the page's CSP refuses the eval it needs.)
  const recorded = (page: Page) => page.evaluate(() => (globalThis as unknown as { recorded: Recorded }).recorded);
  const waitForEvent = (page: Page, timeout: number) =>
    page.waitForFunction(() => (globalThis as unknown as { recorded: Recorded }).recorded.events.length > 0, undefined, { timeout });

  /** The key's remaining allowance on the challenge route, as a page on the allowed origin sees it. */
  async function challengeAllowance(): Promise<{ remaining: number; reset: number }> {
    const res = await t.http.get('/api/v1/widget/challenge').set('X-Api-Key', widgetKey).set('Origin', allowedSite).expect(200);
    return { remaining: Number(res.headers['x-ratelimit-remaining']), reset: Number(res.headers['x-ratelimit-reset']) };
  }

  it(
    'solves with the keyboard, puts a nonce in the form, and the customer server verifies it valid once, for its own host',
    async () => {
      const nonces = () => noncesIssued(t, ownerToken);
      const noncesBefore = await nonces();
      await withPage('widget-browser.png', async (page, pageErrors) => {
        await page.goto(allowedSite);
        await page.getByLabel('Email').fill('visitor@example.com');
        // Keyboard only: Tab from the email field reaches ALTCHA's labelled checkbox, Space checks it.
        await page.keyboard.press('Tab');
        await expect(page.getByRole('checkbox', { name: "I'm not a robot" }).count()).resolves.toBe(1);
        expect(await page.evaluate('document.activeElement.labels[0].textContent.trim()')).toBe("I'm not a robot");
        await page.keyboard.press('Space');
        await waitForEvent(page, SOLVE_TIMEOUT);

        const { events, cspViolations } = await recorded(page);
        expect(events).toEqual([
          {
            type: 'gatehouse:verified',
            target: 'gatehouse-widget',
            detail: { nonce: expect.stringMatching(/^ghn_[\w-]+$/), expiresAt: expect.any(String) },
          },
        ]);
        const { nonce } = events[0].detail as { nonce: string };
        expect(await page.locator('input[name="gatehouse-nonce"]').inputValue()).toBe(nonce);
        // Announced to screen readers; styled (ALTCHA's stylesheet adopted under the CSP); no CSP violation.
        await expect(page.getByRole('status').textContent()).resolves.toBe('Verified. You can submit the form.');
        expect(await page.evaluate('getComputedStyle(document.querySelector(".altcha")).display')).toBe('flex');
        expect(cspViolations).toEqual([]);
        expect(pageErrors).toEqual([]);
        expect(await axeViolations(page)).toEqual([]);
        // The widget's calls: the script, then each API call after its CORS preflight (X-Api-Key makes them non-simple).
        expect(received).toEqual([
          'GET /widget/v1/gatehouse.js',
          'OPTIONS /api/v1/widget/challenge',
          'GET /api/v1/widget/challenge',
          'OPTIONS /api/v1/widget/nonces',
          'POST /api/v1/widget/nonces',
        ]);

        await page.screenshot({ path: join(ARTIFACTS, 'widget-browser-verified.png') });
        await page.getByRole('button', { name: 'Create account' }).click();
        const answer = JSON.parse(await page.locator('#answer').innerText()) as SignupAnswer;
        expect(answer).toEqual({
          // ALTCHA's own hidden field (the raw solution) is not submitted: only the customer's fields and the nonce.
          fields: ['email', 'gatehouse-nonce'],
          verdict: { valid: true, issuedAt: expect.any(String), hostname: 'localhost' },
        });

        // The same form sent again (a replay): the nonce is spent.
        const replay = await fetch(`${allowedSite}/signup`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ email: 'visitor@example.com', 'gatehouse-nonce': nonce }).toString(),
        });
        const replayed = (await replay.text()).match(/<pre id="answer">(.*)<\/pre>/)![1];
        expect({ status: replay.status, answer: JSON.parse(replayed) as SignupAnswer }).toEqual({
          status: 403,
          answer: { fields: ['email', 'gatehouse-nonce'], verdict: { valid: false, reason: 'already_used' } },
        });
      });
      expect(await nonces()).toBe(noncesBefore + 1);
    },
    SOLVE_TIMEOUT + 30_000,
  );

  it(
    'renders in a form a single-page app adds later (Gatehouse.render), with its own field name, and hands the app the nonce',
    async () => {
      await withPage('widget-browser-spa.png', async (page, pageErrors) => {
        await page.goto(`${allowedSite}/app`);
        await page.getByRole('button', { name: 'Sign up' }).click();
        await page.getByRole('checkbox', { name: "I'm not a robot" }).click();
        await page.locator('#result[data-done="true"]').waitFor({ timeout: SOLVE_TIMEOUT });
        const { events, cspViolations } = await recorded(page);
        expect(events).toEqual([{ type: 'gatehouse:verified', target: 'gatehouse-widget', detail: expect.any(Object) }]);
        expect(JSON.parse(await page.locator('#result').innerText())).toEqual({
          fields: ['email', 'bot-check'],
          verdict: { valid: true, issuedAt: expect.any(String), hostname: 'localhost' },
        });
        expect(await page.locator('input[name="bot-check"]').inputValue()).toBe(events[0].detail.nonce);
        expect(cspViolations).toEqual([]);
        expect(pageErrors).toEqual([]);
      });
    },
    SOLVE_TIMEOUT + 30_000,
  );

  it(
    'with data-auto="onsubmit" solves when the form is sent, and sends it once the nonce is in',
    async () => {
      await withPage('widget-browser-on-submit.png', async (page, pageErrors) => {
        await page.goto(`${allowedSite}/on-submit`);
        await page.getByLabel('Email').fill('visitor@example.com');
        await page.getByRole('button', { name: 'Create account' }).click();
        await page.locator('#answer').waitFor({ timeout: SOLVE_TIMEOUT });
        expect(JSON.parse(await page.locator('#answer').innerText())).toEqual({
          fields: ['email', 'gatehouse-nonce'],
          verdict: { valid: true, issuedAt: expect.any(String), hostname: 'localhost' },
        });
        expect(pageErrors).toEqual([]);
      });
    },
    SOLVE_TIMEOUT + 30_000,
  );

  it('gives a script that skips the work 422 challenge_failed and no nonce', async () => {
    const nonces = () => noncesIssued(t, ownerToken);
    const noncesBefore = await nonces();
    await withPage('widget-browser-skipper.png', async (page) => {
      await page.goto(`${allowedSite}/skipper`);
      await page.locator('#result[data-done="true"]').waitFor();
      const result = JSON.parse(await page.locator('#result').innerText()) as { status: number; body: Record<string, unknown> };
      expect(result).toEqual({
        status: 422,
        body: expect.objectContaining({ statusCode: 422, error: 'challenge_failed', requestId: expect.any(String) }),
      });
      expect(result.body).not.toHaveProperty('nonce');
    });
    expect(await nonces()).toBe(noncesBefore);
  });

  it('is refused on a page of an origin the key does not list: 403 reported as gatehouse:error, nothing spent of the key', async () => {
    // Before and after must fall in one rate-limit window; a window that ends in between is simply tried again.
    for (let attempt = 1; ; attempt++) {
      const before = await challengeAllowance();
      await withPage('widget-browser-refused.png', async (page, pageErrors) => {
        await page.goto(otherSite);
        await page.getByRole('checkbox', { name: "I'm not a robot" }).click();
        await waitForEvent(page, UI_TIMEOUT);
        const { events, cspViolations } = await recorded(page);
        expect(events).toEqual([
          {
            type: 'gatehouse:error',
            target: 'gatehouse-widget',
            detail: { code: 'insufficient_permissions', status: 403, message: expect.any(String) },
          },
        ]);
        await expect(page.getByRole('alert').textContent()).resolves.toContain('insufficient_permissions');
        expect(await page.locator('input[name="gatehouse-nonce"]').inputValue()).toBe('');
        expect(await page.getByRole('checkbox').isChecked()).toBe(false);
        expect(cspViolations).toEqual([]);
        expect(pageErrors).toEqual([]);
        // The preflight is granted (it cannot know the key); the key's origin check refuses the real call.
        expect(received).toEqual(['GET /widget/v1/gatehouse.js', 'OPTIONS /api/v1/widget/challenge', 'GET /api/v1/widget/challenge']);
      });
      const after = await challengeAllowance();
      if (after.reset > before.reset && attempt < 3) continue; // a new window began in between
      // The key's next allowed request has only itself counted since the last one.
      expect(after.remaining).toBe(before.remaining - 1);
      return;
    }
  });
});
