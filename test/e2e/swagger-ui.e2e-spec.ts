/// <reference lib="dom" />
// Code in page.evaluate runs in the browser.
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { browserUnavailable, launchChromium } from '../utils/browser';
import { createAccount, startApp, TestAccount, TestApp } from '../utils/test-app';

const ARTIFACTS = resolve(__dirname, '../../test-artifacts');
const SCREENSHOT = join(ARTIFACTS, 'swagger-ui.png');
const FAILURE_SCREENSHOT = join(ARTIFACTS, 'swagger-ui-failure.png');
const UI_TIMEOUT = 15_000;

const unavailable = browserUnavailable();
if (unavailable) console.warn(`Swagger UI e2e test skipped: ${unavailable}`);
const describeInBrowser = unavailable ? describe.skip : describe;

/** One operation block of the page, found by method and path as a reader finds it. */
function operation(page: Page, method: string, path: string): Locator {
  return page.locator(`.opblock.opblock-${method}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });
}

/** Expands the operation, "Try it out", optional JSON body, "Execute"; returns the live response row. */
async function execute(op: Locator, body?: object): Promise<Locator> {
  await op.locator('.opblock-summary').first().click();
  await op.getByRole('button', { name: 'Try it out' }).click();
  if (body) await op.locator('textarea.body-param__text').fill(JSON.stringify(body));
  await op.getByRole('button', { name: 'Execute' }).click();
  const response = op.locator('.live-responses-table .response').first();
  await response.waitFor({ timeout: UI_TIMEOUT });
  return response;
}

describeInBrowser('Swagger UI (/docs) in Chromium', () => {
  let t: TestApp;
  let account: TestAccount;
  let browser: Browser | undefined;
  let page: Page;
  let baseUrl: string;
  let screenshotTaken = false;

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t);
    // startApp() already ran app.init(); listening on the raw server serves the same Fastify instance.
    const server = t.app.getHttpServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    // Only this app: the page must not depend on (or wait for) anything outside the machine.
    await context.route('**/*', (route) => (route.request().url().startsWith(baseUrl) ? route.continue() : route.abort()));
    page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
  }, 60_000);

  afterAll(async () => {
    try {
      if (page && !screenshotTaken) {
        mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: FAILURE_SCREENSHOT, fullPage: true }).then(
          () => console.log(`Swagger UI failure screenshot: ${FAILURE_SCREENSHOT}`),
          () => undefined,
        );
      }
      await browser?.close();
    } finally {
      await t?.close();
    }
  });

  it("is Gatehouse's: its tab's title and heading, and no stock Swagger top bar", async () => {
    await page.goto(`${baseUrl}/docs`);
    await page.locator('.swagger-ui .info .title').waitFor();
    expect(await page.title()).toBe('Gatehouse API');
    expect((await page.locator('.swagger-ui .info .title').innerText()).trim()).toMatch(/^Gatehouse\b/);
    expect(await page.locator('.swagger-ui .topbar').isVisible()).toBe(false);
  });

  it('logs in, authorizes with the token and gets 200 from GET /api/v1/account', async () => {
    await page.goto(`${baseUrl}/docs`);

    const login = operation(page, 'post', '/api/v1/auth/login');
    const loginResponse = await execute(login, { email: account.owner.email, password: account.owner.password });
    await expectStatus(loginResponse, 200);
    const { token } = JSON.parse(await responseBody(loginResponse)) as { token: string };
    expect(token).toEqual(expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/));

    await page.locator('.auth-wrapper button.authorize').click();
    // One container per security scheme; its buttons are labelled "Apply credentials" / "Remove authorization".
    const jwt = page.locator('.modal-ux .auth-container').filter({ has: page.locator('h4', { hasText: /^\s*jwt\b/ }) });
    await jwt.getByLabel('auth-bearer-value').fill(token);
    await jwt.getByRole('button', { name: 'Apply credentials' }).click();
    await jwt.getByRole('button', { name: 'Remove authorization' }).waitFor({ timeout: UI_TIMEOUT });
    await page.locator('.modal-ux').getByRole('button', { name: 'Close' }).first().click();
    await page.locator('.modal-ux').waitFor({ state: 'detached', timeout: UI_TIMEOUT });

    const getAccount = operation(page, 'get', '/api/v1/account');
    const accountResponse = await execute(getAccount);
    // The operation from its summary (lock icon shows the authorization) down to the live response.
    const top = await pageBox(getAccount);
    const bottom = await pageBox(accountResponse);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true, clip: { ...top, height: bottom.y + bottom.height - top.y } });
    screenshotTaken = true;
    console.log(`Swagger UI screenshot: ${SCREENSHOT}`);

    await expectStatus(accountResponse, 200);
    expect(await responseBody(accountResponse)).toContain(`"${account.id}"`);
  });
});

async function expectStatus(response: Locator, status: number): Promise<void> {
  expect((await response.locator('.response-col_status').innerText()).trim()).toBe(String(status));
}

async function responseBody(response: Locator): Promise<string> {
  return response.locator('.response-col_description pre').first().innerText();
}

/** The element's box in page coordinates (boundingBox() is relative to the viewport; fullPage clips are not). */
function pageBox(element: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  return element.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const view = el.ownerDocument.defaultView!;
    return { x: r.x + view.scrollX, y: r.y + view.scrollY, width: r.width, height: r.height };
  });
}
