import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, browserUnavailable, customerCsp, launchChromium } from '../utils/browser';
import { createAccount, startApp, type TestAccount, type TestApp } from '../utils/test-app';
import { buildWidget } from '../utils/widget-build';
import { noncesIssued } from '../utils/widget';

const ARTIFACTS = resolve(__dirname, '../../test-artifacts');
const UI_TIMEOUT = 15_000;
/** Waiting for a solve at the plan's default difficulty: generous for a loaded CI machine; no assertion on the time. */
const SOLVE_TIMEOUT = 90_000;

const unavailable = browserUnavailable();
if (unavailable) console.warn(`Widget browser e2e test skipped: ${unavailable}`);
const describeInBrowser = unavailable ? describe.skip : describe;

/** What a sign-up page varies in: data-auto, the page's language, the element's data-lang and data-theme. */
interface PageOptions {
  readonly auto?: string;
  readonly lang?: string;
  readonly dataLang?: string;
  readonly theme?: string;
  readonly key?: string;
  /** `fetch`: the page sends its form itself (a single-page app's way) and stays; the answers in `recorded.answers`. */
  readonly send?: string;
  /** Any value: the form has `novalidate` (the browser checks no field; many form libraries do this). */
  readonly novalidate?: string;
}

/** A customer's sign-up page: the documented snippet (one script tag, one element with data-key in the form). */
const signupPage = (api: string, widgetKey: string, o: PageOptions = {}) => {
  const attributes = [
    ['auto', o.auto],
    ['lang', o.dataLang],
    ['theme', o.theme],
  ]
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => ` data-${name}="${value}"`)
    .join('');
  const lang = o.lang ?? 'en';
  return `<!doctype html>
<html lang="${lang}"${lang === 'ar' ? ' dir="rtl"' : ''}><head><meta charset="utf-8"><title>Sign up</title>
<link rel="stylesheet" href="/site.css">
<script src="/recorder.js"></script>
<script src="${api}/widget/v1/gatehouse.js" defer></script>${o.send === 'fetch' ? '\n<script src="/send-by-fetch.js" defer></script>' : ''}
</head><body><h1>Sign up</h1>
<form action="/signup" method="post"${o.novalidate === undefined ? '' : ' novalidate'}>
  <label>Email <input type="email" name="email" required></label>
  <div class="gatehouse-widget" data-key="${o.key ?? widgetKey}"${attributes}></div>
  <button>Create account</button>
</form></body></html>`;
};

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
  // The pointer is already where the widget appears, before ALTCHA's component has mounted.
  form.querySelector('.gatehouse-widget').dispatchEvent(new PointerEvent('pointerenter'));
  form.addEventListener('gatehouse:verified', async () => {
    const res = await fetch('/signup?field=bot-check', {
      method: 'POST', headers: { Accept: 'application/json' }, body: new URLSearchParams(new FormData(form)),
    });
    const out = document.getElementById('result');
    out.textContent = await res.text();
    out.dataset.done = 'true';
  });
});`;

/** Sends the sign-up form as a single-page app does, by fetch, and stays on the page. */
const SEND_BY_FETCH = `const form = document.querySelector('form');
form.addEventListener('submit', async (e) => {
  e.preventDefault();
  const res = await fetch('/signup', { method: 'POST', headers: { Accept: 'application/json' }, body: new URLSearchParams(new FormData(form)) });
  recorded.answers.push({ status: res.status, answer: await res.json() });
});`;

/**
 * Records, for the test, what the widget tells the page: its events (and when), any CSP violation,
 * and when a button was last clicked (kept across the form's navigation, in sessionStorage).
 */
const RECORDER = `window.recorded = { events: [], cspViolations: [], answers: [] };
document.addEventListener('securitypolicyviolation', (e) => recorded.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
for (const type of ['gatehouse:verified', 'gatehouse:error', 'gatehouse:expired'])
  document.addEventListener(type, (e) => recorded.events.push({ type, target: e.target.className, detail: e.detail, at: Date.now() }));
document.addEventListener('click', (e) => e.target.closest('button') && sessionStorage.setItem('clickedAt', String(Date.now())), true);`;

/** The skipper's script: a made-up solution (counter 0 and a key that merely has the wanted prefix), never a search. */
const SKIPPER = `(async () => {
  const { api, key } = document.currentScript.dataset;
  const headers = { 'X-Api-Key': key };
  const challenge = await (await fetch(api + '/api/v1/widget/challenge', { headers })).json();
  const { keyPrefix, keyLength } = challenge.parameters;
  const derivedKey = (keyPrefix + '0'.repeat(keyLength * 2)).slice(0, keyLength * 2);
  const altcha = btoa(JSON.stringify({ challenge, solution: { counter: 0, derivedKey } }));
  const res = await fetch(api + '/api/v1/widget/nonces', {
    method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ altcha }),
  });
  const out = document.getElementById('result');
  out.textContent = JSON.stringify({ status: res.status, body: await res.json() });
  out.dataset.done = 'true';
})();`;

/**
 * A visitor's clock, run in the page before its scripts (page.addInitScript): Date and Date.now
 * `offsetMs` off the real time, and `jumpMs` later still from the moment the widget sends its
 * solution. ALTCHA's workers keep the real clock; they do not read it.
 */
function pageClock({ offsetMs, jumpMs }: { offsetMs: number; jumpMs: number }): void {
  const realFetch = fetch;
  const RealDate = Date;
  let offset = offsetMs;
  class VisitorDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...(args as []));
    }
    static override now() {
      return RealDate.now() + offset;
    }
  }
  const page = globalThis as unknown as { Date: unknown; fetch: typeof fetch };
  page.Date = VisitorDate;
  page.fetch = (input, init) => {
    if (typeof input === 'string' && input.endsWith('/api/v1/widget/nonces')) offset = offsetMs + jumpMs;
    return realFetch(input, init);
  };
}

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
  readonly effort?: Record<string, unknown>;
}

interface SignupAnswer {
  readonly fields: string[];
  readonly verdict: Verdict;
  /** When the customer's server received the form (Date.now()). */
  readonly receivedAt: number;
}

/** What a valid nonce's verification answers about the work behind it (docs/API.md, "Effort"). */
/** The address the customer's sign-up refuses as taken (409), after checking the nonce. */
const TAKEN = 'taken@example.com';

const EFFORT = {
  algorithm: 'PBKDF2/SHA-256',
  cost: 1000,
  expectedSolveMs: expect.any(Number),
  solveMs: expect.any(Number),
  surge: false,
};

/** A Prometheus counter's total over all its label sets. */
function counterTotal(text: string, name: string): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
    .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describeInBrowser('the widget script on a customer page, in Chromium (docs/PROTECT-A-FORM.md)', () => {
  const METRICS_TOKEN = 'metrics-token-for-the-widget-browser-test';
  let t: TestApp;
  let api: string;
  let allowedSite: string;
  let otherSite: string;
  const sites: Server[] = [];
  let ownerToken: string;
  let account: TestAccount;
  let widgetKey: string;
  let verifyKey: string;
  let browser: Browser | undefined;
  /** What reached the API, preflights included (the browser does not show those to the page). */
  const received: string[] = [];

  /**
   * The customer's site: the sign-up page (its variants from the query: auto, lang, dataLang,
   * theme, key), its assets, and the form's handler, which checks the nonce with Gatehouse as
   * docs/PROTECT-A-FORM.md shows (server to server, with a verify key).
   */
  async function customerSite(): Promise<{ server: Server; port: number }> {
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const receivedAt = Date.now();
      const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) =>
        res
          .writeHead(status, {
            'Content-Type': `${type}; charset=utf-8`,
            ...headers,
          })
          .end(body);
      const html = (body: string) =>
        send(200, 'text/html', body, {
          'Content-Security-Policy': customerCsp(api),
        });
      const url = new URL(req.url ?? '/', 'http://site');
      if (req.method === 'GET' && url.pathname === '/') {
        const options = Object.fromEntries(url.searchParams) as PageOptions;
        return html(signupPage(api, widgetKey, options));
      }
      if (req.method === 'GET' && url.pathname === '/skipper') return html(skipperPage(api, widgetKey));
      if (req.method === 'GET' && url.pathname === '/app') return html(spaPage(api, widgetKey));
      if (req.method === 'GET' && url.pathname === '/spa.js') return send(200, 'text/javascript', SPA);
      if (req.method === 'GET' && url.pathname === '/send-by-fetch.js') return send(200, 'text/javascript', SEND_BY_FETCH);
      if (req.method === 'GET' && url.pathname === '/site.css')
        return send(200, 'text/css', 'body{font:16px system-ui,sans-serif;margin:24px}');
      if (req.method === 'GET' && url.pathname === '/recorder.js') return send(200, 'text/javascript', RECORDER);
      if (req.method === 'GET' && url.pathname === '/skipper.js') return send(200, 'text/javascript', SKIPPER);
      if (req.method === 'POST' && url.pathname === '/signup') {
        // The nonce's field: `gatehouse-nonce` unless the page's data-field named another one.
        const field = url.searchParams.get('field') ?? 'gatehouse-nonce';
        void readBody(req).then(async (body) => {
          const form = new URLSearchParams(body);
          const check = await fetch(`${api}/api/v1/nonces/verify`, {
            method: 'POST',
            headers: {
              'X-Api-Key': verifyKey,
              'Content-Type': 'application/json',
            },
            body: JSON.stringify({ nonce: form.get(field) ?? '' }),
          });
          const answer: SignupAnswer = {
            fields: [...form.keys()],
            verdict: (await check.json()) as Verdict,
            receivedAt,
          };
          // An address already taken is refused after the check, as a real sign-up would: the nonce is spent.
          const status = !answer.verdict.valid ? 403 : form.get('email') === TAKEN ? 409 : 200;
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
    t = await startApp({ METRICS_TOKEN });
    const server = t.app.getHttpServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    server.on('request', (req: { method: string; url: string }) => received.push(`${req.method} ${req.url}`));
    // Two customer sites on other ports: other origins than the API and than each other. The
    // allowed one is reached as localhost, so the nonce's hostname is told apart from the API's host.
    allowedSite = `http://localhost:${(await customerSite()).port}`;
    otherSite = `http://127.0.0.1:${(await customerSite()).port}`;

    account = await createAccount(t);
    ownerToken = account.owner.token;
    widgetKey = await newWidgetKey();
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
   * A widget key for the allowed site at the plan's default difficulty (not the tests' easy one:
   * the default must solve in a browser). A test that times the widget has a key of its own, so
   * the other tests' challenges do not make its key or visitor surge.
   */
  async function newWidgetKey(): Promise<string> {
    return (
      await account.createKey({
        scopes: ['widget'],
        allowedOrigins: [allowedSite],
        challengeWaitMs: null,
      })
    ).key;
  }

  /**
   * A fresh browser profile per page (no cached preflight or script from another test), its
   * screenshot kept in test-artifacts/, and every uncaught page error and console error collected.
   */
  async function withPage<T>(
    screenshot: string,
    use: (page: Page, pageErrors: string[], consoleErrors: string[]) => Promise<T>,
  ): Promise<T> {
    const context: BrowserContext = await browser!.newContext({
      viewport: { width: 900, height: 620 },
    });
    // No context.route(): with interception on, Playwright answers CORS preflights itself.
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    const pageErrors: string[] = [];
    const consoleErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    received.length = 0;
    try {
      return await use(page, pageErrors, consoleErrors);
    } finally {
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, screenshot) }).catch(() => undefined);
      await context.close();
    }
  }

  type Recorded = {
    events: Array<{
      type: string;
      target: string;
      detail: Record<string, unknown>;
      at: number;
    }>;
    cspViolations: string[];
    answers: Array<{ status: number; answer: SignupAnswer }>;
  };
  // globalThis, not window: this file is compiled without the DOM library. (A string page function
  // would not do for waitForFunction: the page's CSP refuses the eval it needs.)
  const recorded = (page: Page) => page.evaluate(() => (globalThis as unknown as { recorded: Recorded }).recorded);
  const waitForEvent = (page: Page, timeout: number) =>
    page.waitForFunction(() => (globalThis as unknown as { recorded: Recorded }).recorded.events.length > 0, undefined, { timeout });
  const withoutTimes = (events: Recorded['events']) => events.map(({ at: _at, ...event }) => event);

  const widgetDerivations = async () =>
    counterTotal(
      (await t.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200)).text,
      'gatehouse_widget_derivations_total',
    );

  it(
    'solves with the keyboard (Tab, Enter), puts a nonce in the form, and the customer server verifies it valid once, for its own host, with its effort',
    async () => {
      const nonces = () => noncesIssued(t, ownerToken);
      const noncesBefore = await nonces();
      await withPage('widget-browser.png', async (page, pageErrors) => {
        await page.goto(allowedSite);
        await page.getByLabel('Email').fill('visitor@example.com');
        // Keyboard only: Tab from the email field reaches ALTCHA's labelled checkbox, with a visible focus ring.
        await page.keyboard.press('Tab');
        const box = page.getByRole('checkbox', { name: "I'm not a robot" });
        await expect(box.count()).resolves.toBe(1);
        expect(await page.evaluate('document.activeElement.labels[0].textContent.trim()')).toBe("I'm not a robot");
        expect(await box.evaluate((el) => [getComputedStyle(el).outlineStyle, getComputedStyle(el).outlineWidth])).toEqual([
          'solid',
          '2px',
        ]);
        // Enter starts it, as Space does, and does not send the form.
        const pressedAt = Date.now();
        await page.keyboard.press('Enter');
        await waitForEvent(page, SOLVE_TIMEOUT);

        const { events, cspViolations } = await recorded(page);
        expect(withoutTimes(events)).toEqual([
          {
            type: 'gatehouse:verified',
            target: 'gatehouse-widget',
            detail: {
              nonce: expect.stringMatching(/^ghn_[\w-]+$/),
              expiresAt: expect.any(String),
            },
          },
        ]);
        const { nonce } = events[0].detail as { nonce: string };
        console.log(`Enter → nonce in ${events[0].at - pressedAt} ms`);
        expect(await page.locator('input[name="gatehouse-nonce"]').inputValue()).toBe(nonce);
        // Ticked, and its label says so.
        expect(await page.getByRole('checkbox', { name: 'Verified' }).isChecked()).toBe(true);
        // Announced to screen readers; styled (ALTCHA's stylesheet adopted under the CSP); no CSP violation.
        await expect(page.getByRole('status').textContent()).resolves.toBe('Verified.');
        expect(await page.evaluate('getComputedStyle(document.querySelector(".altcha-main")).display')).toBe('flex');
        await expect(page.locator('.altcha-footer').innerText()).resolves.toBe('Gatehouse · Protected by ALTCHA');
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

        await page.screenshot({
          path: join(ARTIFACTS, 'widget-browser-verified.png'),
        });
        await page.getByRole('button', { name: 'Create account' }).click();
        const answer = JSON.parse(await page.locator('#answer').innerText()) as SignupAnswer;
        expect(answer).toEqual({
          // ALTCHA's own hidden field (the raw solution) is not submitted: only the customer's fields and the nonce.
          fields: ['email', 'gatehouse-nonce'],
          verdict: {
            valid: true,
            issuedAt: expect.any(String),
            hostname: 'localhost',
            effort: EFFORT,
          },
          receivedAt: expect.any(Number),
        });

        // The same form sent again (a replay): the nonce is spent.
        const replay = await fetch(`${allowedSite}/signup`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            email: 'visitor@example.com',
            'gatehouse-nonce': nonce,
          }).toString(),
        });
        const replayed = (await replay.text()).match(/<pre id="answer">(.*)<\/pre>/)![1];
        expect({
          status: replay.status,
          answer: JSON.parse(replayed) as SignupAnswer,
        }).toEqual({
          status: 403,
          answer: {
            fields: ['email', 'gatehouse-nonce'],
            verdict: { valid: false, reason: 'already_used' },
            receivedAt: expect.any(Number),
          },
        });
      });
      expect(await nonces()).toBe(noncesBefore + 1);
    },
    SOLVE_TIMEOUT + 30_000,
  );

  it(
    'with data-auto="onfocus" has the nonce before a 2-second fill ends, and the form goes within 100 ms of the click',
    async () => {
      const key = await newWidgetKey();
      await withPage('widget-browser-on-focus.png', async (page, pageErrors) => {
        await page.goto(`${allowedSite}/?auto=onfocus&key=${key}`);
        const email = 'someone.typing@example.com';
        await page.getByLabel('Email').pressSequentially(email, { delay: 2000 / email.length });
        const filledAt = Date.now();
        const { events } = await recorded(page);
        expect(withoutTimes(events)).toEqual([
          {
            type: 'gatehouse:verified',
            target: 'gatehouse-widget',
            detail: expect.any(Object),
          },
        ]);
        expect(events[0].at).toBeLessThanOrEqual(filledAt);
        await page.getByRole('button', { name: 'Create account' }).click();
        const answer = JSON.parse(await page.locator('#answer').innerText()) as SignupAnswer;
        expect(answer).toEqual({
          fields: ['email', 'gatehouse-nonce'],
          verdict: {
            valid: true,
            issuedAt: expect.any(String),
            hostname: 'localhost',
            effort: EFFORT,
          },
          receivedAt: expect.any(Number),
        });
        const clickedAt = Number(
          await page.evaluate(() => (globalThis as unknown as { sessionStorage: Storage }).sessionStorage.getItem('clickedAt')),
        );
        console.log(
          `onfocus: nonce ${filledAt - events[0].at} ms before the fill ended; click → form received ${answer.receivedAt - clickedAt} ms`,
        );
        expect(answer.receivedAt - clickedAt).toBeLessThan(100);
        expect(pageErrors).toEqual([]);
      });
    },
    SOLVE_TIMEOUT + 30_000,
  );

  it(
    'renders in a form a single-page app adds later (Gatehouse.render), with its own field name, starts on a click on the box, and hands the app the nonce; a form taken away mid-work exchanges nothing',
    async () => {
      await withPage('widget-browser-spa.png', async (page, pageErrors) => {
        await page.goto(`${allowedSite}/app`);
        await page.getByRole('button', { name: 'Sign up' }).click();
        // A click in the middle of the box, where ALTCHA draws its check mark.
        await page.getByRole('checkbox', { name: "I'm not a robot" }).click();
        await page.locator('#result[data-done="true"]').waitFor({ timeout: SOLVE_TIMEOUT });
        const { events, cspViolations } = await recorded(page);
        expect(withoutTimes(events)).toEqual([
          {
            type: 'gatehouse:verified',
            target: 'gatehouse-widget',
            detail: expect.any(Object),
          },
        ]);
        expect(JSON.parse(await page.locator('#result').innerText())).toEqual({
          fields: ['email', 'bot-check'],
          verdict: {
            valid: true,
            issuedAt: expect.any(String),
            hostname: 'localhost',
            effort: EFFORT,
          },
          receivedAt: expect.any(Number),
        });
        expect(await page.locator('input[name="bot-check"]').inputValue()).toBe(events[0].detail.nonce);

        // A second form, taken away by the app while its work runs (the visitor moved on): its solution is not exchanged.
        await page.getByRole('button', { name: 'Sign up' }).click();
        const second = page.locator('form').nth(1);
        await second.getByRole('checkbox', { name: "I'm not a robot" }).click();
        await second.locator('altcha-widget').evaluate((altcha) => {
          altcha.addEventListener('verified', () => ((globalThis as unknown as { solvedAway: boolean }).solvedAway = true));
          altcha.closest('form')!.remove();
        });
        await page.waitForFunction(() => (globalThis as unknown as { solvedAway?: boolean }).solvedAway === true, undefined, {
          timeout: SOLVE_TIMEOUT,
        });
        await page.waitForTimeout(300);
        expect(received.filter((request) => request === 'POST /api/v1/widget/nonces')).toHaveLength(1);
        expect(cspViolations).toEqual([]);
        expect(pageErrors).toEqual([]);
      });
    },
    2 * SOLVE_TIMEOUT + 30_000,
  );

  it(
    'with data-auto="onsubmit" solves when the form is sent, and sends it once the nonce is in',
    async () => {
      await withPage('widget-browser-on-submit.png', async (page, pageErrors) => {
        await page.goto(`${allowedSite}/?auto=onsubmit`);
        await page.getByLabel('Email').fill('visitor@example.com');
        await page.getByRole('button', { name: 'Create account' }).click();
        await page.locator('#answer').waitFor({ timeout: SOLVE_TIMEOUT });
        expect(JSON.parse(await page.locator('#answer').innerText())).toEqual({
          fields: ['email', 'gatehouse-nonce'],
          verdict: {
            valid: true,
            issuedAt: expect.any(String),
            hostname: 'localhost',
            effort: EFFORT,
          },
          receivedAt: expect.any(Number),
        });
        expect(pageErrors).toEqual([]);
      });
    },
    SOLVE_TIMEOUT + 30_000,
  );

  it('speaks the page’s language, why a check failed included: German on a lang="de" page', async () => {
    await withPage('widget-browser-de.png', async (page, pageErrors) => {
      await page.goto(`${allowedSite}/?lang=de`);
      await page.getByRole('checkbox', { name: 'Ich bin kein Roboter' }).waitFor();
      await expect(page.locator('.altcha-footer').innerText()).resolves.toBe('Gatehouse · Geschützt durch ALTCHA');
      // Sent without the box: the widget says, in German, what is missing.
      await page.getByLabel('Email').fill('besucher@example.com');
      await page.getByRole('button', { name: 'Create account' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe('Überprüfung erforderlich!');
      expect(pageErrors).toEqual([]);
    });
    // And why a check failed: a German page of a site the key does not allow.
    await withPage('widget-browser-de-refused.png', async (page, pageErrors) => {
      await page.goto(`${otherSite}/?lang=de`);
      await page.getByRole('checkbox', { name: 'Ich bin kein Roboter' }).click();
      await waitForEvent(page, UI_TIMEOUT);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'Auf dieser Website nicht zugelassen: Ihr Origin gehört nicht zu den erlaubten Origins des Gatehouse-Schlüssels.',
      );
      expect(pageErrors).toEqual([]);
    });
  });

  it('gives a script that skips the work 422 challenge_failed and no nonce', async () => {
    const nonces = () => noncesIssued(t, ownerToken);
    const noncesBefore = await nonces();
    await withPage('widget-browser-skipper.png', async (page) => {
      await page.goto(`${allowedSite}/skipper`);
      await page.locator('#result[data-done="true"]').waitFor();
      const result = JSON.parse(await page.locator('#result').innerText()) as { status: number; body: Record<string, unknown> };
      expect(result).toEqual({
        status: 422,
        body: expect.objectContaining({
          statusCode: 422,
          error: 'challenge_failed',
          requestId: expect.any(String),
        }),
      });
      expect(result.body).not.toHaveProperty('nonce');
    });
    expect(await nonces()).toBe(noncesBefore);
  });

  it('is refused on a page of an origin the key does not list: 403 shown as such, reported, and nothing derived; a verify key in data-key is named a public secret', async () => {
    const derivationsBefore = await widgetDerivations();
    await withPage('widget-browser-refused.png', async (page, pageErrors, consoleErrors) => {
      await page.goto(otherSite);
      await page.getByRole('checkbox', { name: "I'm not a robot" }).click();
      await waitForEvent(page, UI_TIMEOUT);
      const { events, cspViolations } = await recorded(page);
      expect(withoutTimes(events)).toEqual([
        {
          type: 'gatehouse:error',
          target: 'gatehouse-widget',
          detail: {
            code: 'insufficient_permissions',
            status: 403,
            message: expect.any(String),
          },
        },
      ]);
      // The visitor reads what it is; the site's owner finds the API's own message in the console.
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(/^Not allowed on this site/);
      expect(consoleErrors).toContainEqual(expect.stringMatching(/^Gatehouse: .*\(insufficient_permissions, HTTP 403, request /));
      expect(await page.locator('input[name="gatehouse-nonce"]').inputValue()).toBe('');
      expect(await page.getByRole('checkbox').isChecked()).toBe(false);
      expect(cspViolations).toEqual([]);
      expect(pageErrors).toEqual([]);
      // The preflight is granted (it cannot know the key); the key's origin check refuses the real call.
      expect(received).toEqual(['GET /widget/v1/gatehouse.js', 'OPTIONS /api/v1/widget/challenge', 'GET /api/v1/widget/challenge']);
    });
    expect(await widgetDerivations()).toBe(derivationsBefore);
    // The verify key in data-key by mistake: the console says what it is, and that it is now public.
    await withPage('widget-browser-verify-key.png', async (page, pageErrors, consoleErrors) => {
      await page.goto(`${allowedSite}/?key=${verifyKey}`);
      await page.getByRole('checkbox', { name: "I'm not a robot" }).click();
      await waitForEvent(page, UI_TIMEOUT);
      expect(consoleErrors).toContainEqual(
        expect.stringMatching(/^Gatehouse: This API key lacks the "widget" scope\. \(insufficient_permissions, HTTP 403, .*revoke it/),
      );
      expect(pageErrors).toEqual([]);
    });
  });

  it(
    'judges expiry by Gatehouse’s clock, not the visitor’s: a clock 10 minutes fast still gets its form through, one 10 minutes slow loses the nonce when it expires; with onfocus a submit then solves again and goes',
    async () => {
      const skewClock = (page: Page, minutes: number) => page.addInitScript(pageClock, { offsetMs: minutes * 60_000, jumpMs: 0 });
      const verdict = { valid: true, issuedAt: expect.any(String), hostname: 'localhost', effort: EFFORT };

      const key = await newWidgetKey();
      await withPage('widget-browser-clock-fast.png', async (page, pageErrors) => {
        await skewClock(page, 10);
        await page.goto(`${allowedSite}/?key=${key}`);
        await page.getByRole('checkbox', { name: "I'm not a robot" }).click();
        await waitForEvent(page, SOLVE_TIMEOUT);
        await page.getByLabel('Email').fill('fast.clock@example.com');
        await page.getByRole('button', { name: 'Create account' }).click();
        const answer = JSON.parse(await page.locator('#answer').innerText()) as SignupAnswer;
        expect(answer).toEqual({ fields: ['email', 'gatehouse-nonce'], verdict, receivedAt: expect.any(Number) });
        expect(pageErrors).toEqual([]);
      });

      // The account's nonces live 30 s, the shortest allowed, until this test ends.
      const nonceTtl = (seconds: number) =>
        t.http.patch('/api/v1/account').set('Authorization', `Bearer ${ownerToken}`).send({ nonceTtlSeconds: seconds }).expect(200);
      await nonceTtl(30);
      const shortKey = await newWidgetKey();
      await withPage('widget-browser-clock-slow.png', async (page, pageErrors) => {
        await skewClock(page, -10);
        await page.goto(`${allowedSite}/?key=${shortKey}&auto=onfocus`);
        await page.getByLabel('Email').fill('slow.clock@example.com');
        await waitForEvent(page, SOLVE_TIMEOUT);
        const { events } = await recorded(page);
        expect(events.map((e) => e.type)).toEqual(['gatehouse:verified']);
        expect(await page.locator('input[name="gatehouse-nonce"]').inputValue()).toMatch(/^ghn_/);
        // Gatehouse's 30 s pass: by its clock the nonce is dead, and the widget says so.
        await expect(page.getByRole('alert').textContent({ timeout: 40_000 })).resolves.toBe('Verification expired. Try again.');
        expect(await page.locator('input[name="gatehouse-nonce"]').inputValue()).toBe('');
        // The page hears of it too (a single-page app disables its button again).
        expect((await recorded(page)).events.map((e) => e.type)).toEqual(['gatehouse:verified', 'gatehouse:expired']);
        expect(await page.getByRole('checkbox').isChecked()).toBe(false);
        // One click on the button: the widget solves again and the form goes with the new nonce.
        await page.getByRole('button', { name: 'Create account' }).click();
        const answer = JSON.parse(await page.locator('#answer').innerText({ timeout: SOLVE_TIMEOUT })) as SignupAnswer;
        expect(answer).toEqual({ fields: ['email', 'gatehouse-nonce'], verdict, receivedAt: expect.any(Number) });
        expect(pageErrors).toEqual([]);
      }).finally(() => nonceTtl(300));
    },
    3 * SOLVE_TIMEOUT + 60_000,
  );

  it(
    'says "expired", not "refused", when the solution reaches Gatehouse after its challenge ran out (a tab in the background)',
    async () => {
      const SIX_MINUTES = 6 * 60_000;
      const realNow = Date.now;
      // Six minutes pass between the solve and the exchange, for the page and for Gatehouse alike:
      // both clocks jump as the solution is sent. Gatehouse runs in this process.
      const jump = (req: { method: string; url: string }) => {
        if (req.method === 'POST' && req.url === '/api/v1/widget/nonces') Date.now = () => realNow() + SIX_MINUTES;
      };
      const server = t.app.getHttpServer();
      server.prependListener('request', jump);
      try {
        await withPage('widget-browser-challenge-ran-out.png', async (page, pageErrors) => {
          await page.addInitScript(pageClock, { offsetMs: 0, jumpMs: SIX_MINUTES });
          await page.goto(allowedSite);
          await page.getByRole('checkbox', { name: "I'm not a robot" }).click();
          await waitForEvent(page, SOLVE_TIMEOUT);
          const { events } = await recorded(page);
          expect(withoutTimes(events)).toEqual([
            {
              type: 'gatehouse:error',
              target: 'gatehouse-widget',
              detail: {
                code: 'challenge_failed',
                status: 422,
                message: 'This challenge expired before its solution was sent; solve a new challenge.',
              },
            },
          ]);
          await expect(page.getByRole('alert').textContent()).resolves.toBe('Verification expired. Try again.');
          expect(await page.locator('input[name="gatehouse-nonce"]').inputValue()).toBe('');
          expect(pageErrors).toEqual([]);
        });
      } finally {
        server.removeListener('request', jump);
        Date.now = realNow;
      }
    },
    SOLVE_TIMEOUT + 30_000,
  );
  it(
    'gets a new nonce for each send of a page that stays: a sign-up refused by the server goes again with a new one; a double click goes once',
    async () => {
      const key = await newWidgetKey();
      await withPage('widget-browser-resend.png', async (page, pageErrors) => {
        const answers = async () => (await recorded(page)).answers;
        const verified = async () => (await recorded(page)).events.filter((e) => e.type === 'gatehouse:verified').length;
        const answered = (n: number) =>
          page.waitForFunction((count) => (globalThis as unknown as { recorded: Recorded }).recorded.answers.length === count, n, {
            timeout: SOLVE_TIMEOUT,
          });
        await page.goto(`${allowedSite}/?key=${key}&auto=onfocus&send=fetch`);
        await page.getByLabel('Email').fill(TAKEN);
        await waitForEvent(page, SOLVE_TIMEOUT);
        await page.getByRole('button', { name: 'Create account' }).click();
        await answered(1);
        // The nonce was good and is spent; the server refused the address.
        expect((await answers())[0]).toMatchObject({ status: 409, answer: { verdict: { valid: true } } });

        // The visitor corrects the address and sends again: the widget solves a new nonce for this send, then sends it.
        await page.waitForTimeout(2_100);
        await page.getByLabel('Email').fill('second.try@example.com');
        await page.getByRole('button', { name: 'Create account' }).click();
        await answered(2);
        expect((await answers())[1]).toMatchObject({ status: 200, answer: { verdict: { valid: true } } });
        expect(await verified()).toBe(2);
        expect(pageErrors).toEqual([]);

        // A double click on a fresh form: the first submit goes; the second, with the same nonce, does not.
        await page.reload();
        await page.getByLabel('Email').fill('double.click@example.com');
        await waitForEvent(page, SOLVE_TIMEOUT);
        await page.getByRole('button', { name: 'Create account' }).dblclick();
        await answered(1);
        // The widget has a new nonce ready for a real second send; the form was not sent again.
        await page.waitForFunction(
          () =>
            (globalThis as unknown as { recorded: Recorded }).recorded.events.filter((e) => e.type === 'gatehouse:verified').length === 2,
          undefined,
          { timeout: SOLVE_TIMEOUT },
        );
        expect(await answers()).toEqual([
          { status: 200, answer: expect.objectContaining({ verdict: expect.objectContaining({ valid: true }) }) },
        ]);
        expect(pageErrors).toEqual([]);
      });
    },
    4 * SOLVE_TIMEOUT,
  );
  it(
    'holds a form the browser does not validate (novalidate) as the box’s required check would: unchecked, it is not sent and says so; checked, it goes with its nonce',
    async () => {
      await withPage('widget-browser-novalidate.png', async (page, pageErrors) => {
        await page.goto(`${allowedSite}/?novalidate=1`);
        await page.getByLabel('Email').fill('no.validation@example.com');
        await page.getByRole('button', { name: 'Create account' }).click();
        await expect(page.getByRole('alert').textContent()).resolves.toBe('Verification required!');
        expect(await page.getByRole('heading').textContent()).toBe('Sign up');
        await page.getByRole('checkbox', { name: "I'm not a robot" }).click();
        await waitForEvent(page, SOLVE_TIMEOUT);
        await page.getByRole('button', { name: 'Create account' }).click();
        const answer = JSON.parse(await page.locator('#answer').innerText()) as SignupAnswer;
        expect(answer.verdict.valid).toBe(true);
        expect(pageErrors).toEqual([]);
      });
    },
    SOLVE_TIMEOUT + 30_000,
  );
});
