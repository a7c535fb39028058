import express from 'express';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Browser, Page, Response } from 'playwright-core';
import { GatehouseVerifier, type Verdict } from '../../sdk/src/index';
import { gatehouse } from '../../sdk/src/express';
import { browserUnavailable, customerCsp, launchChromium } from '../utils/browser';
import { createAccount, startApp, type TestApp } from '../utils/test-app';
import { buildWidget } from '../utils/widget-build';

const ARTIFACTS = resolve(__dirname, '../../test-artifacts');
/** Waiting for the widget's solve on a loaded CI machine: generous, and never asserted on. */
const SOLVE_TIMEOUT = 60_000;

const unavailable = browserUnavailable();
if (unavailable) console.warn(`SDK form e2e test skipped: ${unavailable}`);
const describeInBrowser = unavailable ? describe.skip : describe;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function listen(server: Server): Promise<number> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as AddressInfo).port;
}
const closeServer = (server: Server) => new Promise<void>((done) => server.close(() => done()));

/**
 * A customer's site protected as sdk/README.md shows: the widget on a sign-up form, and an Express
 * server that verifies the nonce with @gatehouse/verify/express before its handler runs. Against
 * the real app, in Chromium, on another origin than Gatehouse's.
 */
describeInBrowser('a form protected by the widget and @gatehouse/verify/express, in Chromium', () => {
  let t: TestApp;
  let appOpen = false;
  let api: string;
  let site: string;
  let widgetKey: string;
  let browser: Browser;
  const servers: Server[] = [];
  /** The verdicts the sign-up handler was given: only accepted forms reach it. */
  const handled: Array<{ form: string; email: string; verdict: Verdict }> = [];
  /** Idempotency-Key of each verify that went through the lossy network. */
  const keysThroughLossyNetwork: string[] = [];
  let answersToDrop = 0;

  /**
   * The network between the customer's server and Gatehouse: forwards each request to Gatehouse and,
   * while `answersToDrop` > 0, lets Gatehouse answer and then drops the connection instead of
   * passing the answer on (as sdk-verify.e2e-spec.ts's proxy does).
   */
  function lossyNetwork(): Server {
    return createServer((req, res) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        keysThroughLossyNetwork.push(String(req.headers['idempotency-key']));
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
        ) as Record<string, string>;
        const upstream = await fetch(`${api}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) });
        const text = await upstream.text();
        if (answersToDrop > 0) {
          answersToDrop--;
          return void req.socket.destroy();
        }
        res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' });
        res.end(text);
      })().catch(() => req.socket.destroy());
    });
  }

  /** The site: GET /<form> is the sign-up page, POST /<form> its handler behind the SDK's middleware. */
  function customerSite(verifiers: Record<string, GatehouseVerifier>): express.Express {
    const site = express();
    site.use(express.urlencoded({ extended: false }));
    site.get('/site.css', (_req, res) => {
      res.type('css').send('body{font:16px system-ui,sans-serif;margin:24px;max-width:36em}.ok{color:#176b2c}');
    });
    for (const [form, verifier] of Object.entries(verifiers)) {
      site.get(`/${form}`, (_req, res) => {
        res
          .set('Content-Security-Policy', customerCsp(api))
          .type('html')
          .send(
            `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign up</title>
<link rel="stylesheet" href="/site.css">
<script src="${api}/widget/v1/gatehouse.js" defer></script>
</head><body><h1>Sign up</h1>
<form action="/${form}" method="post">
  <label>Email <input type="email" name="email" required></label>
  <div class="gatehouse-widget" data-key="${widgetKey}"></div>
  <button>Create account</button>
</form></body></html>`,
          );
      });
      site.post(`/${form}`, gatehouse(verifier), (req, res) => {
        // Typed by the SDK (Express.Request's `gatehouse`): the handler only runs for an accepted verdict.
        const verdict = req.gatehouse!;
        const email = String((req.body as { email?: unknown }).email);
        handled.push({ form, email, verdict });
        const by = verdict.outcome === 'valid' ? `, checked on ${escapeHtml(verdict.hostname ?? 'no page')}` : '';
        res
          .set('Content-Security-Policy', customerCsp(api))
          .type('html')
          .send(
            `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Welcome</title><link rel="stylesheet" href="/site.css"></head>
<body><h1>Welcome!</h1><p class="ok">Your account ${escapeHtml(email)} is created${by}.</p></body></html>`,
          );
      });
    }
    // A configuration error (a refused key) reaches Express's error handling: a 500 that names it.
    site.use((err: { code?: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ error: err.code ?? 'unknown' });
    });
    return site;
  }

  beforeAll(async () => {
    buildWidget();
    t = await startApp();
    appOpen = true;
    await t.app.listen(0, '127.0.0.1');
    api = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;

    const network = lossyNetwork();
    servers.push(network);
    const lossy = `http://127.0.0.1:${await listen(network)}`;

    // The site listens on 127.0.0.1 and is visited as localhost: another origin than Gatehouse's,
    // and a hostname of its own in the nonce.
    const siteServer = createServer();
    servers.push(siteServer);
    site = `http://localhost:${await listen(siteServer)}`;

    const account = await createAccount(t);
    widgetKey = (await account.createKey({ name: 'Sign-up form', scopes: ['widget'], allowedOrigins: [site] })).key;
    const verifyKey = (await account.createKey({ name: 'Sign-up server', scopes: ['verify'] })).key;
    // The default failure policy (onUnavailable: 'reject'), as a sign-up form has it.
    const verifier = (baseUrl: string) => new GatehouseVerifier({ apiKey: verifyKey, baseUrl, hostnames: ['localhost'] });
    siteServer.on('request', customerSite({ signup: verifier(api), 'signup-over-lossy-network': verifier(lossy) }));

    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    try {
      await browser?.close();
      await Promise.all(servers.map(closeServer));
    } finally {
      if (appOpen) await t.close();
    }
  });

  /**
   * A person on the sign-up page: types an email, ticks the widget's box, waits for it to say
   * Verified, and (unless `beforeSending` says otherwise first) clicks Create account. Answers the
   * form's POST: its request body and the site's response.
   */
  async function signUp(
    page: Page,
    form: string,
    email: string,
    beforeSending: () => Promise<unknown> = () => Promise.resolve(),
  ): Promise<{ sent: string; response: Response }> {
    await page.goto(`${site}/${form}`);
    await page.getByLabel('Email').fill(email);
    await page.getByRole('checkbox', { name: "I'm not a robot" }).click();
    await page.getByRole('checkbox', { name: 'Verified' }).waitFor({ timeout: SOLVE_TIMEOUT });
    await beforeSending();
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === `/${form}`),
      page.getByRole('button', { name: 'Create account' }).click(),
    ]);
    return { sent: response.request().postData() ?? '', response };
  }

  /** A fresh browser profile for one person's visit; an uncaught error on the page fails the test. */
  const withPage = async <T>(use: (page: Page) => Promise<T>): Promise<T> => {
    const context = await browser.newContext({ viewport: { width: 720, height: 360 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const pageErrors: string[] = [];
      page.on('pageerror', (err) => pageErrors.push(err.message));
      const result = await use(page);
      expect(pageErrors).toEqual([]);
      return result;
    } finally {
      await context.close();
    }
  };

  const problem = async (response: { status: number; headers: Headers; json(): Promise<unknown> }) => ({
    status: response.status,
    type: response.headers.get('content-type'),
    body: await response.json(),
  });

  it(
    'accepts a person’s sign-up once (the handler gets valid for the page’s hostname), and refuses the same form sent again: 403 already_used',
    async () => {
      const { sent, response } = await withPage(async (page) => {
        const submitted = await signUp(page, 'signup', 'visitor@example.com');
        await page.getByRole('heading', { name: 'Welcome!' }).waitFor();
        await expect(page.locator('.ok').innerText()).resolves.toBe('Your account visitor@example.com is created, checked on localhost.');
        mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: join(ARTIFACTS, 'sdk-form-accepted.png') });
        return submitted;
      });
      expect(response.status()).toBe(200);
      // The browser sent the customer's field and the widget's nonce.
      const fields = new URLSearchParams(sent);
      expect([...fields.keys()]).toEqual(['email', 'gatehouse-nonce']);
      expect(fields.get('gatehouse-nonce')).toMatch(/^ghn_[\w-]+$/);
      expect(handled).toEqual([
        {
          form: 'signup',
          email: 'visitor@example.com',
          verdict: {
            outcome: 'valid',
            accepted: true,
            hostname: 'localhost',
            issuedAt: expect.any(Date),
            effort: expect.objectContaining({ algorithm: 'PBKDF2/SHA-256', surge: false }),
            replayed: false,
            attempts: 1,
            requestId: expect.any(String),
          },
        },
      ]);

      // The same form data again (a double submit, or a replay of the captured request).
      const again = await fetch(`${site}/signup`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: sent,
      });
      expect(await problem(again)).toEqual({
        status: 403,
        type: 'application/problem+json',
        body: {
          type: 'about:blank',
          title: 'Forbidden',
          status: 403,
          detail: 'This form was already sent with this verification. Complete the check again to send it once more.',
          outcome: 'invalid',
          reason: 'already_used',
        },
      });
      expect(handled).toHaveLength(1);
    },
    SOLVE_TIMEOUT + 30_000,
  );

  it(
    'accepts a sign-up whose verify answer was lost on the way: the retry under the same Idempotency-Key gets valid (replayed)',
    async () => {
      handled.length = 0;
      keysThroughLossyNetwork.length = 0;
      answersToDrop = 1;
      const { response } = await withPage(async (page) => {
        const submitted = await signUp(page, 'signup-over-lossy-network', 'patient@example.com');
        await page.getByRole('heading', { name: 'Welcome!' }).waitFor();
        return submitted;
      });
      expect(response.status()).toBe(200);
      expect(answersToDrop).toBe(0);
      expect(handled).toEqual([
        {
          form: 'signup-over-lossy-network',
          email: 'patient@example.com',
          verdict: expect.objectContaining({ outcome: 'valid', accepted: true, hostname: 'localhost', replayed: true, attempts: 2 }),
        },
      ]);
      expect(keysThroughLossyNetwork).toEqual([expect.any(String), keysThroughLossyNetwork[0]]);
    },
    SOLVE_TIMEOUT + 30_000,
  );

  it(
    'refuses a sign-up while Gatehouse is down, under the default policy: 403 unverified (network)',
    async () => {
      handled.length = 0;
      const refused = await withPage(async (page) => {
        // The person has passed the check; Gatehouse stops before the form is sent.
        const { response } = await signUp(page, 'signup', 'unlucky@example.com', async () => {
          appOpen = false;
          await t.close();
        });
        // What the person is shown: the middleware's problem, as Chromium displays JSON (in a <pre>, which the form page has not).
        const shown: unknown = JSON.parse(await page.locator('pre').innerText());
        return { status: response.status(), type: response.headers()['content-type'], shown };
      });
      expect(refused).toEqual({
        status: 403,
        type: 'application/problem+json',
        shown: {
          type: 'about:blank',
          title: 'Forbidden',
          status: 403,
          detail: 'The verification service could not be reached. Try again in a moment.',
          outcome: 'unverified',
          error: 'network',
        },
      });
      expect(handled).toEqual([]);
    },
    SOLVE_TIMEOUT + 30_000,
  );
});
