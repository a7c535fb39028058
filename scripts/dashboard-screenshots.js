'use strict';
// `npm run docs:screenshots` — the dashboard's main pages as PNGs in docs/screenshots/, for the docs
// and the README: builds the app, starts it on a fresh embedded database with the bootstrap OWNER,
// gives the account some keys, a team and traffic through the real API, then photographs each page in
// headless Chromium (Debian's, as the browser tests use).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const L = require('../bench/lib');

const OUT = path.join(L.ROOT, 'docs/screenshots');

/** Page path → file name and what must be on screen before the picture is taken. */
const PAGES = [
  { path: '/keys', file: 'keys.png', ready: (page) => page.getByRole('row', { name: /Checkout page/ }).waitFor() },
  {
    path: '/webhooks',
    file: 'webhooks.png',
    ready: (page) =>
      page
        .getByRole('row', { name: /Order service/ })
        .getByText('delivered')
        .waitFor(),
  },
  // The whole page: its charts, then the widget's figures below the fold.
  { path: '/analytics', file: 'analytics.png', fullPage: true, ready: (page) => page.locator('canvas').first().waitFor() },
  {
    path: '/team?tab=invitations',
    file: 'team.png',
    ready: (page) =>
      page
        .getByRole('row', { name: /dev@example.com/ })
        .first()
        .waitFor(),
  },
  { path: '/settings', file: 'settings.png', ready: (page) => page.getByRole('heading', { level: 1 }).waitFor() },
  { path: '/audit', file: 'audit.png', ready: (page) => page.getByRole('row').nth(3).waitFor() },
  { path: '/guide', file: 'guide.png', ready: (page) => page.getByRole('heading', { level: 1 }).waitFor() },
  { path: '/security', file: 'security.png', ready: (page) => page.getByText('This device', { exact: true }).waitFor() },
];

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-screenshots-'));
  L.setLogDir(tmp);
  if (!process.argv.includes('--no-build'))
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: L.ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  // Webhook receivers on loopback (WEBHOOK_ALLOW_PRIVATE lets endpoints point there): one answers 200,
  // the other 503, so the webhooks page shows a delivered and a failing endpoint.
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.statusCode = req.url === '/hooks/directory' ? 503 : 200;
      res.end(res.statusCode === 200 ? 'ok' : 'maintenance');
    });
  });
  await new Promise((done) => receiver.listen(0, '127.0.0.1', done));
  const hook = (p) => `http://127.0.0.1:${receiver.address().port}${p}`;
  const app = await L.startApp(L.appEnv({ DATA_DIR: path.join(tmp, 'data'), LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'true' }));
  const browser = await L.launchChromium();
  try {
    const call = (method, url, body, headers = {}) => L.request(method, app.port, url, { body, headers });
    const login = await L.signInOwner(app.port);
    const auth = { authorization: `Bearer ${login.token}` };
    await L.expect(call('PATCH', '/api/v1/account', { name: 'Acme Shop' }, auth), 200, 'rename');
    const webhooks = [
      { url: hook('/hooks/orders'), description: 'Order service', events: ['api_key.created', 'api_key.revoked'] },
      { url: hook('/hooks/directory'), description: 'Staff directory', events: ['member.joined', 'member.removed'] },
      { url: hook('/hooks/audit') },
    ];
    for (const webhook of webhooks) {
      const { id } = await L.expect(call('POST', '/api/v1/webhooks', webhook, auth), 201, 'webhook');
      await L.expect(call('POST', `/api/v1/webhooks/${id}/test`, undefined, auth), 202, 'webhook test');
    }
    const keys = [
      { name: 'Checkout page', scopes: ['widget'], allowedOrigins: ['https://shop.example.com'] },
      { name: 'Order server', scopes: ['verify'] },
      { name: 'Status monitor', scopes: ['public'] },
    ];
    const secrets = [];
    for (const key of keys) secrets.push((await L.expect(call('POST', '/api/v1/api-keys', key, auth), 201, 'key')).key);
    for (let i = 0; i < 60; i++) await call('GET', '/api/v1/public/ping', undefined, { 'x-api-key': secrets[2] });
    for (let i = 0; i < 25; i++) await call('POST', '/api/v1/nonces/verify', { nonce: `n${i}` }, { 'x-api-key': secrets[1] });
    for (let i = 0; i < 8; i++) await call('GET', '/api/v1/public/ping', undefined, { 'x-api-key': secrets[0] }); // 403: wrong scope
    // A page the Checkout key does not allow asks for a challenge: refused (403), a failed challenge.
    const elsewhere = { 'x-api-key': secrets[0], origin: 'https://elsewhere.example.com' };
    await L.expect(call('GET', '/api/v1/widget/challenge', undefined, elsewhere), 403, 'refused challenge');
    // And a made-up solution from the shop's page: refused (422), a failed challenge of another kind.
    const shop = { 'x-api-key': secrets[0], origin: 'https://shop.example.com' };
    await L.expect(call('POST', '/api/v1/widget/nonces', { altcha: 'bm90IGEgc29sdXRpb24=' }, shop), 422, 'wrong solution');
    for (const [email, role] of [
      ['dev@example.com', 'DEVELOPER'],
      ['analyst@example.com', 'ANALYST'],
    ])
      await L.expect(call('POST', '/api/v1/team/invitations', { email, role }, auth), 201, 'invite');

    // Keys' "last used" is written in batches every 5 s (src/api-keys/api-key-usage.tracker.ts).
    await new Promise((done) => setTimeout(done, 6_000));
    const context = await L.dashboardContext(browser, login, { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    fs.mkdirSync(OUT, { recursive: true });
    for (const { path: pagePath, file, ready, fullPage = false } of PAGES) {
      await page.goto(`http://${L.HOST}:${app.port}${pagePath}`);
      await ready(page);
      await page.waitForTimeout(300); // let charts finish their first paint
      await page.screenshot({ path: path.join(OUT, file), fullPage });
      L.log(`docs/screenshots/${file}`);
    }
    // "Protect a form", its "Try it" run through with the widget key and the verify key made above. At
    // PUBLIC_URL's origin (bench/lib.js startApp), from where Gatehouse accepts every key.
    await page.goto(`http://${L.HOST}:${app.port}/keys`);
    await page.getByRole('button', { name: 'Protect a form' }).click();
    const onboarding = page.getByRole('region', { name: 'Protect a form' });
    await onboarding.getByRole('button', { name: 'Use Checkout page' }).click();
    await onboarding.getByLabel('Verify key').fill(secrets[1]);
    await onboarding.getByRole('button', { name: 'Try it' }).click();
    await onboarding.getByText('Every step passed').waitFor({ timeout: 60_000 });
    await onboarding.screenshot({ path: path.join(OUT, 'onboarding.png') });
    L.log('docs/screenshots/onboarding.png');
    // The widget's figures below the charts above: that run's challenge and nonce, the refused
    // challenge, the made-up solution and nonces, with the reasons beneath "Challenges failed" and "Nonces invalid".
    await page.goto(`http://${L.HOST}:${app.port}/analytics`);
    const widget = page.getByRole('region', { name: 'Widget' });
    await widget.getByRole('list', { name: 'Challenges failed by reason' }).waitFor();
    await widget.getByRole('list', { name: 'Nonces invalid by reason' }).waitFor();
    await widget.locator('canvas').first().waitFor();
    await page.waitForTimeout(300);
    await widget.screenshot({ path: path.join(OUT, 'analytics-widget.png') });
    L.log('docs/screenshots/analytics-widget.png');
    await context.close();
    // The keys on a phone (docs/DASHBOARD.md, "Phones"): one block per key, its actions on screen.
    const phone = await L.dashboardContext(browser, login, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
    const phonePage = await phone.newPage();
    await phonePage.goto(`http://${L.HOST}:${app.port}/keys`);
    await PAGES[0].ready(phonePage);
    await phonePage.screenshot({ path: path.join(OUT, 'keys-phone.png') });
    L.log('docs/screenshots/keys-phone.png');
    await phone.close();
    const signin = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signin.goto(`http://${L.HOST}:${app.port}/sign-in`);
    await signin.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signin.screenshot({ path: path.join(OUT, 'sign-in.png') });
  } finally {
    await browser.close();
    await L.stop(app.child);
    receiver.closeAllConnections();
    receiver.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  L.killAllNow();
  process.exit(1);
});
