/// <reference lib="dom" />
// Code in page.evaluate runs in the browser.
import { execFileSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { browserUnavailable, launchChromium } from './browser';

export { axeViolations } from './browser';
import { startApp, TestApp, TestUser } from './test-app';

const ROOT = resolve(__dirname, '../..');
/** UI waits: generous for a loaded CI machine; no assertion is about time. */
export const UI_TIMEOUT = 15_000;

let built = false;
/**
 * Builds the dashboard (`npm run build:dashboard`, a few seconds) into dist/web, where the app serves
 * it from, once per test process: a test never runs against a stale build of dashboard/src.
 */
export function buildDashboard(): void {
  if (built) return;
  execFileSync(process.execPath, [resolve(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '-c', 'dashboard/vite.config.mts'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: '', NODE_ENV: 'production' }, // Jest's NODE_ENV=test would build React for development
  });
  built = true;
}

const unavailable = browserUnavailable();
if (unavailable) console.warn(`Dashboard browser e2e tests skipped: ${unavailable}`);
/** describe, or describe.skip where no browser can run (never on CI: browserUnavailable throws there). */
export const describeInBrowser = unavailable ? describe.skip : describe;

export interface Dashboard {
  readonly t: TestApp;
  /** http://127.0.0.1:<port>: the app, listening as main.ts has it listen. */
  readonly base: string;
  readonly browser: Browser;
  close(): Promise<void>;
}

/** A port no one listens on now (the system's pick). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((done) => probe.close(() => done()));
  return port;
}

/**
 * The real app (startApp) listening on a port, its dashboard built, and Chromium. Its PUBLIC_URL is
 * where the browser opens it, as in a deployment (unless `env` says otherwise); `host: 'localhost'`
 * for WebAuthn, whose relying party must be a domain, not an IP address.
 */
export async function startDashboard(env: NodeJS.ProcessEnv = {}, { host = '127.0.0.1' }: { host?: string } = {}): Promise<Dashboard> {
  buildDashboard();
  const port = await freePort();
  const base = `http://${host}:${port}`;
  // Where the browser opens it is one of Gatehouse's own origins even when a test sets another PUBLIC_URL (for its e-mailed links).
  const origins = env.PUBLIC_URL === undefined ? {} : { DASHBOARD_ORIGINS: [env.DASHBOARD_ORIGINS, base].filter(Boolean).join(',') };
  const t = await startApp({ PUBLIC_URL: base, ...env, ...origins });
  const server = t.app.getHttpServer();
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  const browser = await launchChromium();
  return {
    t,
    base,
    browser,
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

export interface DashboardPage {
  readonly context: BrowserContext;
  readonly page: Page;
  /**
   * Console errors, CSP violations included, and uncaught errors. Failed loads (4xx and 5xx answers,
   * which Chromium logs as "Failed to load resource") are left out, as many tests provoke them on
   * purpose (a wrong password, an expired token, a used link); with `strict`, they are in, and so is
   * every console warning.
   */
  readonly problems: string[];
  /** Every URL the page requested. */
  readonly urls: string[];
}

/** A desktop window; a test of phones passes { width: 390, height: 844 }. */
export const DESKTOP = { width: 1280, height: 860 };

/**
 * A fresh browser context (its own cookies and storage: a browser of its own) on the dashboard, in a window of `viewport`.
 * `strict`: for pages that provoke no failed load, so that any such load, error or warning fails the test.
 */
export async function openDashboard(
  d: Dashboard,
  path = '/',
  viewport = DESKTOP,
  { strict = false }: { strict?: boolean } = {},
): Promise<DashboardPage> {
  const context = await d.browser.newContext({ baseURL: d.base, viewport });
  context.setDefaultTimeout(UI_TIMEOUT);
  const page = await context.newPage();
  const problems: string[] = [];
  const urls: string[] = [];
  page.on('console', (msg) => {
    const failedLoad = msg.text().startsWith('Failed to load resource');
    if (strict && (msg.type() === 'error' || msg.type() === 'warning')) {
      // A failed load's message names no URL: its location does.
      problems.push(`${msg.type()}: ${msg.text()}${failedLoad ? ` (${msg.location().url})` : ''}`);
    } else if (msg.type() === 'error' && !failedLoad) problems.push(msg.text());
  });
  page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
  page.on('request', (req) => urls.push(req.url()));
  await page.goto(path);
  return { context, page, problems, urls };
}

/**
 * What scrolls sideways in the window, described (none, on a phone: docs/DASHBOARD.md, "Phones"):
 * the page wider than the window, and each open modal dialog reaching out of the window or scrolling
 * sideways inside. A modal dialog is in the top layer, fixed to the window: nothing in it widens the
 * page, so it is measured on its own. A code block or a table scrolling in its own box is fine.
 */
export function sidewaysScroll(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const found: string[] = [];
    const pageWidth = document.documentElement.scrollWidth;
    if (pageWidth > width) found.push(`the page is ${pageWidth} px wide`);
    for (const dialog of Array.from(document.querySelectorAll('dialog[open]'))) {
      const name = `the dialog "${document.getElementById(dialog.getAttribute('aria-labelledby') ?? '')?.textContent ?? '?'}"`;
      const box = dialog.getBoundingClientRect();
      if (box.left < 0 || box.right > width) found.push(`${name} spans ${Math.round(box.left)}–${Math.round(box.right)} px`);
      if (dialog.scrollWidth > dialog.clientWidth) found.push(`${name} scrolls ${dialog.scrollWidth - dialog.clientWidth} px sideways`);
    }
    return found;
  });
}

/** Signs in through the sign-in form (the page must be showing it) and waits for the page it leads to. */
export async function signIn(page: Page, user: Pick<TestUser, 'email' | 'password'>): Promise<void> {
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
}

/**
 * A token of the page's browser session, taken as the dashboard takes it: the page exchanges its
 * HttpOnly session cookie (POST /api/v1/auth/login/session). The token is that session's, so the
 * test's API calls act as the signed-in person.
 */
export async function tokenOf(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const res = await fetch('/api/v1/auth/login/session', { method: 'POST', headers: { 'X-Gatehouse-Session': '1' } });
    if (!res.ok) throw new Error(`the session exchange answered ${res.status}`);
    return ((await res.json()) as { token: string }).token;
  });
}

/** The id of the page's session: the `jti` of the tokens it takes. */
export async function sessionIdOf(page: Page): Promise<string> {
  const token = await tokenOf(page);
  return (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { jti: string }).jti;
}

/** The browser's session cookie as the browser keeps it (HttpOnly: only the test, not the page, reads it). */
export async function sessionCookieOf(context: BrowserContext) {
  const cookie = (await context.cookies()).find((c) => c.name === 'gatehouse_session');
  if (cookie === undefined) throw new Error('the browser has no session cookie');
  return cookie;
}

/** Any JWT in a URL the page requested. */
export const JWT_IN_URL = /eyJ[\w-]+\.eyJ[\w-]+\./;
