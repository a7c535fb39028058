'use strict';
// `npm run bench:widget` — how long a visitor waits for the widget at the default difficulty: builds
// the app (`npm run build`, widget included), starts it as `npm run start:prod` does on the embedded
// default, serves a customer page embedding /widget/v1/gatehouse.js, and in headless Chromium
// (Debian's, as the browser e2e tests use) checks the box N times, each on a fresh page with a
// fresh widget key (so no surge raises the difficulty: docs/API.md, "Challenge difficulty").
//
// Per solve: ALTCHA's own `took` (its workers' search, from the payload the widget sends) and the
// wall time from the click to `gatehouse:verified` (challenge request, search, nonce exchange), with
// the challenge's maxnumber and the number found. Prints median and p90 of each; docs/PERFORMANCE.md,
// "Widget solve time", records them.
//
// Options: --solves N (default 20), --maxnumber N (the keys' own difficulty instead of the plan's
// default), --no-build (use the dist/ already built). The browser is not
// pinned to a core: a visitor's machine gives the widget all of its cores (ALTCHA starts one worker
// per navigator.hardwareConcurrency). The server runs on core 0 as in bench/run.js.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const L = require('./lib');

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SOLVES = arg('--solves', 20);
const MAXNUMBER = arg('--maxnumber', null); // null: the plan's default
const BUILD = !process.argv.includes('--no-build');
const SOLVE_TIMEOUT_MS = 120_000;

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** The customer page: the documented snippet, plus a recorder of click → gatehouse:verified (performance.now()). */
const page = (api, key) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign up</title>
<script>
  window.solve = {};
  document.addEventListener('click', (e) => { if (e.target.type === 'checkbox' && solve.clickedAt === undefined) solve.clickedAt = performance.now(); }, true);
  document.addEventListener('gatehouse:verified', () => { solve.verifiedAt = performance.now(); });
  document.addEventListener('gatehouse:error', (e) => { solve.error = e.detail.code; });
</script>
<script src="${api}/widget/v1/gatehouse.js" defer></script>
</head><body><form action="/signup" method="post">
<label>Email <input type="email" name="email"></label>
<div class="gatehouse-widget" data-key="${key}"></div>
<button>Sign up</button></form></body></html>`;

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-widget-bench-'));
  L.setLogDir(tmp);
  if (BUILD) {
    L.log('npm run build');
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: L.ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const app = await L.startApp(L.appEnv({ DATA_DIR: path.join(tmp, 'data'), LOG_LEVEL: 'warn' }));
  const api = `http://${L.HOST}:${app.port}`;
  const keys = new Map(); // page path → key
  const site = http.createServer((req, res) => {
    const key = keys.get(req.url);
    if (key === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page(api, key));
  });
  await new Promise((done) => site.listen(0, L.HOST, done));
  const origin = `http://${L.HOST}:${site.address().port}`;
  const browser = await L.launchChromium();
  try {
    const login = await L.expect(L.request('POST', app.port, '/api/v1/auth/login', { body: L.OWNER }), 200, 'owner login');
    const auth = { authorization: `Bearer ${login.token}` };
    const solves = [];
    for (let i = 0; i < SOLVES; i++) {
      const created = await L.expect(
        L.request('POST', app.port, '/api/v1/api-keys', {
          body: { name: `widget-bench-${i}`, scopes: ['widget'], allowedOrigins: [origin], challengeMaxNumber: MAXNUMBER },
          headers: auth,
        }),
        201,
        'create key',
      );
      keys.set(`/${i}`, created.key);
      const context = await browser.newContext();
      const tab = await context.newPage();
      let maxnumber;
      let solution;
      tab.on('response', (r) => {
        if (r.url().endsWith('/api/v1/widget/challenge') && r.status() === 200)
          r.json().then(
            (c) => (maxnumber = c.maxnumber),
            () => undefined,
          );
      });
      tab.on('request', (r) => {
        if (r.url().endsWith('/api/v1/widget/nonces') && r.method() === 'POST')
          solution = JSON.parse(Buffer.from(JSON.parse(r.postData()).altcha, 'base64').toString());
      });
      await tab.goto(`${origin}/${i}`);
      await tab.getByRole('checkbox', { name: "I'm not a robot" }).click();
      await tab.waitForFunction(() => globalThis.solve.verifiedAt !== undefined || globalThis.solve.error !== undefined, undefined, {
        timeout: SOLVE_TIMEOUT_MS,
      });
      const recorded = await tab.evaluate(() => ({ ...globalThis.solve, workers: navigator.hardwareConcurrency }));
      await context.close();
      if (recorded.error !== undefined) throw new Error(`solve ${i + 1}: gatehouse:error ${recorded.error}`);
      const s = {
        maxnumber,
        number: solution.number,
        took: solution.took,
        wall: recorded.verifiedAt - recorded.clickedAt,
        workers: recorded.workers,
      };
      solves.push(s);
      L.log(
        `solve ${i + 1}/${SOLVES}: maxnumber ${s.maxnumber}, number ${s.number}, took ${s.took} ms, click → nonce ${Math.round(s.wall)} ms`,
      );
    }
    const summary = (field) =>
      `median ${Math.round(L.median(solves.map((s) => s[field])))} ms, p90 ${Math.round(
        percentile(
          solves.map((s) => s[field]),
          90,
        ),
      )} ms`;
    const maxnumbers = [...new Set(solves.map((s) => s.maxnumber))].join(', ');
    console.log(`
Widget solve time: ${SOLVES} solves in headless Chromium ${browser.version()}, ${solves[0].workers} workers (navigator.hardwareConcurrency), ${os.cpus()[0].model}
  maxnumber (difficulty):  ${maxnumbers}
  number found:            median ${Math.round(L.median(solves.map((s) => s.number)))}, p90 ${percentile(
    solves.map((s) => s.number),
    90,
  )}
  ALTCHA's took (search):  ${summary('took')}
  click → nonce (wall):    ${summary('wall')}`);
  } finally {
    await browser.close();
    site.close();
    await L.stop(app.child);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  L.killAllNow();
  process.exit(1);
});
