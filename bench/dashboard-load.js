'use strict';
// `npm run bench:dashboard` — what the dashboard's first load costs: builds the app (`npm run build`,
// dashboard included), starts it as `npm run start:prod` does on the embedded default, creates a few
// API keys, and in headless Chromium (Debian's, as the browser e2e tests use) opens /keys signed in,
// N times in fresh browser contexts (an empty cache each time), then N times with the cache warm.
//
// Per load: the JavaScript and CSS bytes on the wire (compressed, as the browser received them) and
// the time from navigation start to the keys page being interactive: the key list rendered and the
// "Create key" button enabled. Prints median and p90, judged against the budget (docs/PERFORMANCE.md,
// "Dashboard"): first load ≤ 250 KB of JS + CSS compressed, keys page interactive ≤ 1 s.
//
// Options: --loads N (default 10), --no-build (use the dist/ already built).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const L = require('./lib');

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const LOADS = arg('--loads', 10);
const BUILD = !process.argv.includes('--no-build');
const BUDGET_KB = 250;
const BUDGET_MS = 1000;
const KEYS = 8;

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** One load of /keys in `context`: compressed JS + CSS bytes received, and ms from navigation start to interactive. */
async function load(context, base) {
  const page = await context.newPage();
  const assets = [];
  page.on('requestfinished', (req) => {
    if (['script', 'stylesheet'].includes(req.resourceType())) assets.push(req);
  });
  await page.goto(`${base}/keys`);
  await page.getByRole('row').nth(KEYS).waitFor(); // header row + KEYS keys
  await page.getByRole('button', { name: 'Create key' }).waitFor();
  const ms = await page.evaluate(() => performance.now());
  let bytes = 0;
  for (const req of assets) {
    const sizes = await req.sizes();
    bytes += sizes.responseBodySize; // as sent: compressed
  }
  await page.close();
  return { ms, bytes, files: assets.length };
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-dashboard-bench-'));
  L.setLogDir(tmp);
  if (BUILD) {
    L.log('npm run build');
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: L.ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const app = await L.startApp(L.appEnv({ DATA_DIR: path.join(tmp, 'data'), LOG_LEVEL: 'warn' }));
  const base = `http://${L.HOST}:${app.port}`;
  const browser = await L.launchChromium();
  try {
    const login = await L.signInOwner(app.port);
    for (let i = 0; i < KEYS; i++) {
      const body = { name: `dashboard-bench-${i}`, scopes: ['widget', 'verify'] };
      await L.expect(
        L.request('POST', app.port, '/api/v1/api-keys', { body, headers: { authorization: `Bearer ${login.token}` } }),
        201,
        'key',
      );
    }
    const signedIn = () => L.dashboardContext(browser, login);
    const cold = [];
    for (let i = 0; i < LOADS; i++) {
      const context = await signedIn();
      cold.push(await load(context, base));
      await context.close();
      L.log(
        `cold load ${i + 1}/${LOADS}: ${Math.round(cold.at(-1).ms)} ms, ${(cold.at(-1).bytes / 1024).toFixed(1)} KB in ${cold.at(-1).files} files`,
      );
    }
    const warm = [];
    const context = await signedIn();
    await load(context, base);
    for (let i = 0; i < LOADS; i++) warm.push(await load(context, base));
    await context.close();

    const ms = (xs) =>
      `median ${Math.round(L.median(xs.map((x) => x.ms)))} ms, p90 ${Math.round(
        percentile(
          xs.map((x) => x.ms),
          90,
        ),
      )} ms`;
    const kb = Math.max(...cold.map((x) => x.bytes)) / 1024;
    const coldMedian = L.median(cold.map((x) => x.ms));
    console.log(`
Dashboard first load: /keys with ${KEYS} keys, ${LOADS} loads each, headless Chromium ${browser.version()}, ${os.cpus()[0].model}
  JS + CSS on the wire (first load):  ${kb.toFixed(1)} KB in ${cold[0].files} files   budget ${BUDGET_KB} KB: ${kb <= BUDGET_KB ? 'met' : 'NOT MET'}
  interactive, empty cache:           ${ms(cold)}   budget ${BUDGET_MS} ms (median): ${coldMedian <= BUDGET_MS ? 'met' : 'NOT MET'}
  interactive, warm cache:            ${ms(warm)}`);
  } finally {
    await browser.close();
    await L.stop(app.child);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  L.killAllNow();
  process.exit(1);
});
