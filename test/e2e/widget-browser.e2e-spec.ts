import { createServer, Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { browserUnavailable, launchChromium } from '../utils/browser';
import { createAccount, startApp, TestApp } from '../utils/test-app';

const ARTIFACTS = resolve(__dirname, '../../test-artifacts');
const UI_TIMEOUT = 15_000;

const unavailable = browserUnavailable();
if (unavailable) console.warn(`Widget browser e2e test skipped: ${unavailable}`);
const describeInBrowser = unavailable ? describe.skip : describe;

/** A customer's page: its script calls the widget routes with the key, as the widget does, and shows what it got. */
function widgetPage(api: string, key: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Shop checkout</title>
<style>body{font:16px system-ui,sans-serif;margin:24px}pre{background:#f4f4f4;padding:12px}</style></head>
<body><h1>Checkout (<span id="origin"></span>)</h1><pre id="result">loading…</pre>
<script>
document.getElementById('origin').textContent = location.origin;
const show = (value) => { const el = document.getElementById('result'); el.textContent = JSON.stringify(value, null, 2); el.dataset.done = 'true'; };
(async () => {
  try {
    const headers = { 'X-Api-Key': ${JSON.stringify(key)} };
    const config = await fetch(${JSON.stringify(`${api}/api/v1/widget/config`)}, { headers });
    const configBody = await config.json();
    if (!config.ok) return show({ refused: config.status, error: configBody.error, requestId: config.headers.get('X-Request-Id') });
    const challenge = await fetch(${JSON.stringify(`${api}/api/v1/widget/challenge`)}, { headers });
    show({
      config: { status: config.status, accountId: configBody.accountId, remaining: config.headers.get('X-RateLimit-Remaining') },
      challenge: { status: challenge.status, issued: typeof (await challenge.json()).challenge === 'string', remaining: challenge.headers.get('X-RateLimit-Remaining'),
               limit: challenge.headers.get('X-RateLimit-Limit'), requestId: challenge.headers.get('X-Request-Id') },
    });
  } catch (err) {
    show({ failed: String(err) });
  }
})();
</script></body></html>`;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describeInBrowser('the widget on a customer page, in Chromium (docs/API.md, "Browser clients (CORS)")', () => {
  let t: TestApp;
  let api: string;
  let allowedSite: string;
  let otherSite: string;
  const sites: Server[] = [];
  let key: string;
  let accountId: string;
  let browser: Browser | undefined;
  let context: BrowserContext;
  /** What reached the API, preflights included (the browser does not report those to the page). */
  const received: string[] = [];

  beforeAll(async () => {
    t = await startApp();
    api = await listen(t.app.getHttpServer());
    t.app.getHttpServer().on('request', (req: { method: string; url: string }) => received.push(`${req.method} ${req.url}`));
    // Two sites on other ports: other origins than the API, and than each other.
    let page = '';
    for (let i = 0; i < 2; i++) {
      const site = createServer((req, res) => {
        if (req.url !== '/') return void res.writeHead(404).end();
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
      });
      sites.push(site);
    }
    allowedSite = await listen(sites[0]);
    otherSite = await listen(sites[1]);
    const account = await createAccount(t);
    accountId = account.id;
    ({ key } = await account.createKey({ scopes: ['widget'], allowedOrigins: [allowedSite] }));
    page = widgetPage(api, key);

    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 900, height: 620 } });
    // No context.route() here: with interception on, Playwright answers CORS preflights itself, and
    // the preflights under test would never reach the API. The pages load nothing from elsewhere.
  }, 60_000);

  afterAll(async () => {
    try {
      await browser?.close();
      await Promise.all(sites.map((s) => new Promise((done) => s.close(done))));
    } finally {
      await t?.close();
    }
  });

  async function open(site: string, screenshot: string): Promise<Record<string, unknown>> {
    const page: Page = await context.newPage();
    received.length = 0;
    try {
      await page.goto(site);
      await page.locator('#result[data-done="true"]').waitFor({ timeout: UI_TIMEOUT });
      return { ...(JSON.parse(await page.locator('#result').innerText()) as object), apiCalls: [...received] };
    } finally {
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, screenshot) }).catch(() => undefined);
      await page.close();
    }
  }

  it('calls GET /widget/config and GET /widget/challenge with X-Api-Key from an allowed origin and reads X-RateLimit-Remaining', async () => {
    const result = await open(allowedSite, 'widget-browser.png');
    expect(result).toEqual({
      config: { status: 200, accountId, remaining: expect.stringMatching(/^\d+$/) },
      // The visitor's allowance (30 a minute) leaves less than the key's (60): the headers show it.
      challenge: { status: 200, issued: true, remaining: expect.stringMatching(/^\d+$/), limit: '30', requestId: expect.any(String) },
      // X-Api-Key makes both calls non-simple: Chromium preflights each (no key sent) before the real call.
      apiCalls: [
        'OPTIONS /api/v1/widget/config',
        'GET /api/v1/widget/config',
        'OPTIONS /api/v1/widget/challenge',
        'GET /api/v1/widget/challenge',
      ],
    });
    const { config, challenge } = result as { config: { remaining: string }; challenge: { remaining: string } };
    // One request counted on each endpoint: the preflights did not count.
    expect(Number(config.remaining)).toBe(29);
    expect(Number(challenge.remaining)).toBe(29);
  });

  it('is refused on a page of an origin the key does not list (403 insufficient_permissions, readable by the page)', async () => {
    const result = await open(otherSite, 'widget-browser-refused.png');
    expect(result).toEqual({
      refused: 403,
      error: 'insufficient_permissions',
      requestId: expect.any(String),
      // The preflight is granted (it cannot know the key); the key's origin check refuses the real call.
      apiCalls: ['OPTIONS /api/v1/widget/config', 'GET /api/v1/widget/config'],
    });
  });
});
