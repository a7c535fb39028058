'use strict';
// `npm run bench:widget` — what the widget's proof of work (ALTCHA v2, PBKDF2/SHA-256, src/widget/pow.ts)
// costs a visitor and a bot at each difficulty level (a visitor's median wait: 250, 500, 1000, 2000 ms).
//
// Builds the app and the widget into a private directory (tsc + vite; `--no-build`: use the checkout's
// dist/), starts it as `npm run start:prod` does on the embedded default (core 0), serves a customer page
// of another origin embedding /widget/v1/gatehouse.js, and per level and solve:
// - visitor: in headless Chromium (Debian's, as the browser e2e tests use; not pinned: a visitor's
//   machine gives the widget all its cores) checks the box on a fresh page with a fresh key at that
//   level (so no surge raises the difficulty), the pointer resting on it 200 ms first as a person's
//   does (the widget starts its workers then), and times click → `gatehouse:verified` (challenge
//   request, the widget's workers' search, nonce exchange); the challenge and the counter found are
//   read from the traffic;
// - bot: the same challenges, solved by bench/widget-bot.js on one core (taskset -c 1): altcha-lib's
//   `solveChallenge` with its node:crypto PBKDF2, CPU seconds by process.cpuUsage.
// Then per level: the visitor's median and p90, the bot's CPU seconds a nonce, visitor median ÷ bot
// median, a GPU's time a nonce (an NVIDIA H200: 6.77 M PBKDF2-SHA256 derivations a second at 1000
// iterations; ms a nonce = mean counter / 6.77e6 × 1000), and the bot's CPU seconds per 1,000 nonces;
// and fits of visitor ms = a + b × counter and bot CPU ms = c × (counter + 1) over all solves, which
// src/widget/pow.ts's MAX_COUNTER and ms-a-candidate constants are set from.
//
// Options: --solves N per level (default 24), --levels 250,500 (default all four), --no-build,
// --bot-only (no browser: the bot solves challenges fetched from the app with fresh keys).
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const L = require('./lib');

const argv = process.argv;
const arg = (name, fallback) => {
  const i = argv.indexOf(name);
  return i > 0 ? argv[i + 1] : fallback;
};
const SOLVES = Number(arg('--solves', 24));
const LEVELS = arg('--levels', '250,500,1000,2000').split(',').map(Number);
const BUILD = !argv.includes('--no-build');
const BOT_ONLY = argv.includes('--bot-only');
const SOLVE_TIMEOUT_MS = 120_000;
/** How long the pointer rests on the box before the click (a person's pointer arrives before it clicks). */
const HOVER_MS = 200;
/** One NVIDIA H200: PBKDF2-HMAC-SHA256 derivations a second at 1000 iterations (hashcat-class figure). */
const GPU_DERIVATIONS_PER_S = 6.77e6;
/** The targets at the default level (docs/PERFORMANCE.md, "Budget"). */
const TARGETS = { level: 500, visitorMedianS: 0.5, visitorP90S: 1, botCpuS: 0.25, visitorOverBot: 1.2 };

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const f = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '–');

/** The customer page: the documented snippet, plus a recorder of click → gatehouse:verified (performance.now()). */
const page = (api, key) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign up</title>
<script>
  window.solve = {};
  document.addEventListener('click', (e) => { if (e.target.type === 'checkbox' && solve.clickedAt === undefined) solve.clickedAt = performance.now(); }, true);
  document.addEventListener('gatehouse:verified', () => { solve.verifiedAt = performance.now(); });
  document.addEventListener('gatehouse:error', (e) => { solve.error = e.detail && e.detail.code; });
</script>
<script src="${api}/widget/v1/gatehouse.js" defer></script>
</head><body><form action="/signup" method="post">
<label>Email <input type="email" name="email"></label>
<div class="gatehouse-widget" data-key="${key}"></div>
<button>Sign up</button></form></body></html>`;

/** The app and the widget built into `dir` (tsc as `nest build` does, vite for the widget), away from the checkout's dist/. */
function buildInto(dir) {
  L.log(`building the app and the widget into ${dir}/dist`);
  execFileSync('npx', ['prisma', 'generate'], { cwd: L.ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync(path.join(L.ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json', '--outDir', path.join(dir, 'dist')], {
    cwd: L.ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (!BOT_ONLY)
    execFileSync(
      path.join(L.ROOT, 'node_modules/.bin/vite'),
      ['build', '-c', 'widget/vite.config.mts', '--outDir', path.join(dir, 'dist/widget'), '--emptyOutDir', 'false'],
      { cwd: L.ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
    );
  fs.cpSync(path.join(L.ROOT, 'prisma'), path.join(dir, 'prisma'), { recursive: true });
  fs.symlinkSync(path.join(L.ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  L.setAppDir(dir);
}

/** Solves `challenges` with bench/widget-bot.js on core 1 (taskset, where there is one). */
function botSolve(challenges, tmp) {
  const file = path.join(tmp, `challenges-${Date.now()}.json`);
  fs.writeFileSync(file, JSON.stringify(challenges));
  const node = [process.execPath, path.join(__dirname, 'widget-bot.js'), file];
  const [cmd, ...args] = L.HAS_TASKSET ? ['taskset', '-c', '1', ...node] : node;
  const r = spawnSync(cmd, args, { cwd: L.ROOT, encoding: 'utf8', maxBuffer: 16 << 20, stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`bench/widget-bot.js exited with ${r.status}`);
  return JSON.parse(r.stdout);
}

/** Least squares y = a + b x. */
function fit(points) {
  const mx = mean(points.map((p) => p.x));
  const my = mean(points.map((p) => p.y));
  const b = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return { a: my - b * mx, b };
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-widget-bench-'));
  L.setLogDir(tmp);
  if (BUILD) buildInto(path.join(tmp, 'app'));
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
  const browser = BOT_ONLY ? undefined : await L.launchChromium();
  const browserNote = BOT_ONLY ? 'not run (--bot-only)' : `headless Chromium ${browser.version()}`;
  const results = []; // per level: { level, visitor: [...], bot: [...] }
  try {
    const login = await L.expect(L.request('POST', app.port, '/api/v1/auth/login', { body: L.OWNER }), 200, 'owner login');
    const auth = { authorization: `Bearer ${login.token}` };
    let n = 0;
    const newKey = async (level) => {
      const created = await L.expect(
        L.request('POST', app.port, '/api/v1/api-keys', {
          body: { name: `widget-bench-${++n}`, scopes: ['widget'], allowedOrigins: [origin], challengeWaitMs: level },
          headers: auth,
        }),
        201,
        'create key',
      );
      keys.set(`/${n}`, created.key);
      return { key: created.key, pagePath: `/${n}` };
    };
    for (const level of LEVELS) {
      const visitor = [];
      const challenges = [];
      for (let i = 0; i < SOLVES; i++) {
        const { key, pagePath } = await newKey(level);
        if (!browser) {
          const c = await L.expect(
            L.request('GET', app.port, '/api/v1/widget/challenge', { headers: { 'x-api-key': key, origin } }),
            200,
            'challenge',
          );
          challenges.push(c);
          continue;
        }
        const context = await browser.newContext();
        const tab = await context.newPage();
        let challenge;
        let solution;
        const challengeRead = new Promise((resolve) => {
          tab.on('response', (r) => {
            if (r.url().endsWith('/api/v1/widget/challenge') && r.status() === 200)
              r.json().then(
                (c) => resolve((challenge = c)),
                () => resolve(undefined),
              );
          });
        });
        tab.on('request', (r) => {
          if (r.url().endsWith('/api/v1/widget/nonces') && r.method() === 'POST')
            solution = JSON.parse(Buffer.from(JSON.parse(r.postData()).altcha, 'base64').toString()).solution;
        });
        await tab.goto(`${origin}${pagePath}`);
        // As a person's: the pointer reaches the box a moment (HOVER_MS) before the click.
        const box = tab.getByRole('checkbox').first();
        await box.hover();
        await tab.waitForTimeout(HOVER_MS);
        await box.click();
        await tab.waitForFunction(() => globalThis.solve.verifiedAt !== undefined || globalThis.solve.error !== undefined, undefined, {
          timeout: SOLVE_TIMEOUT_MS,
        });
        const recorded = await tab.evaluate(() => ({ ...globalThis.solve, workers: navigator.hardwareConcurrency }));
        await challengeRead;
        await context.close();
        if (recorded.error !== undefined) throw new Error(`level ${level}, solve ${i + 1}: gatehouse:error ${recorded.error}`);
        const s = {
          counter: solution.counter,
          time: solution.time,
          wall: recorded.verifiedAt - recorded.clickedAt,
          workers: recorded.workers,
        };
        visitor.push(s);
        challenges.push(challenge);
        L.log(
          `level ${level} ms, solve ${i + 1}/${SOLVES}: counter ${s.counter}, search ${f(s.time)} ms, click → nonce ${Math.round(s.wall)} ms`,
        );
      }
      L.log(`level ${level} ms: the bot solves the same ${challenges.length} challenges on one core`);
      const bot = botSolve(challenges, tmp);
      for (const [i, b] of bot.entries())
        if (visitor[i] && visitor[i].counter !== b.counter) throw new Error('bot and visitor found different counters');
      L.log(`  bot CPU ms a nonce: median ${f(L.median(bot.map((b) => b.cpuMs)))}, mean ${f(mean(bot.map((b) => b.cpuMs)))}`);
      results.push({ level, visitor, bot, workers: visitor[0]?.workers });
    }
  } finally {
    if (browser) await browser.close();
    site.close();
    await L.stop(app.child);
  }
  // ---------------------------------------------------------------- report
  const all = results.flatMap((r) => r.bot.map((b, i) => ({ ...b, wall: r.visitor[i]?.wall })));
  const botFit = all.reduce((s, b) => s + b.cpuMs, 0) / all.reduce((s, b) => s + b.counter + 1, 0); // CPU ms a candidate
  const visitorFit = browserNote.startsWith('headless') ? fit(all.map((b) => ({ x: b.counter, y: b.wall }))) : undefined;
  const rows = results.map((r) => {
    const counters = r.bot.map((b) => b.counter);
    const botMedianS = L.median(r.bot.map((b) => b.cpuMs)) / 1000;
    const botMeanS = mean(r.bot.map((b) => b.cpuMs)) / 1000;
    const walls = r.visitor.map((v) => v.wall / 1000);
    const vMed = walls.length ? L.median(walls) : NaN;
    return {
      level: r.level,
      maxSeen: Math.max(...counters),
      meanCounter: mean(counters),
      vMed,
      vP90: walls.length ? percentile(walls, 90) : NaN,
      searchMed: r.visitor.length ? L.median(r.visitor.map((v) => v.time)) / 1000 : NaN,
      botMedianS,
      botMeanS,
      ratio: vMed / botMedianS,
      gpuMs: (mean(counters) / GPU_DERIVATIONS_PER_S) * 1000,
      per1000: botMeanS * 1000,
    };
  });
  console.log(`
Widget proof of work, ${SOLVES} solves a level, ${os.cpus().length} × ${os.cpus()[0].model}
  visitor: ${browserNote}${results[0]?.workers ? `, navigator.hardwareConcurrency ${results[0].workers}` : ''}
  bot: altcha-lib solveChallenge + altcha-lib/algorithms/pbkdf2 (node:crypto ${process.version}), one core; GPU: one H200 at ${GPU_DERIVATIONS_PER_S / 1e6} M derivations/s

| wait level | mean counter (max seen) | visitor median s | visitor p90 s | search median s | bot CPU s a nonce (median / mean) | visitor median ÷ bot median | GPU ms a nonce | bot CPU-s per 1,000 nonces |
|---|---|---|---|---|---|---|---|---|
${rows
  .map(
    (r) =>
      `| ${r.level} ms | ${f(r.meanCounter)} (${r.maxSeen}) | ${f(r.vMed, 2)} | ${f(r.vP90, 2)} | ${f(r.searchMed, 2)} | ${f(r.botMedianS, 3)} / ${f(r.botMeanS, 3)} | ${f(r.ratio, 2)} | ${f(r.gpuMs, 2)} | ${f(r.per1000)} |`,
  )
  .join('\n')}

Fits over all ${all.length} solves: bot ${f(botFit, 4)} CPU ms a candidate${
    visitorFit ? `; visitor click → nonce ${f(visitorFit.a)} ms + ${f(visitorFit.b, 4)} ms a candidate` : ''
  }.`);
  const d = rows.find((r) => r.level === TARGETS.level);
  if (d) {
    const check = (label, value, ok) => console.log(`  ${label}: ${value} — ${ok === undefined ? 'not measured' : ok ? 'met' : 'NOT met'}`);
    console.log(`Targets at the default level (${TARGETS.level} ms):`);
    const has = Number.isFinite(d.vMed);
    check(`visitor median <= ${TARGETS.visitorMedianS} s`, `${f(d.vMed, 2)} s`, has ? d.vMed <= TARGETS.visitorMedianS : undefined);
    check(`visitor p90 <= ${TARGETS.visitorP90S} s`, `${f(d.vP90, 2)} s`, has ? d.vP90 <= TARGETS.visitorP90S : undefined);
    check(`bot >= ${TARGETS.botCpuS} CPU-s a nonce (median)`, `${f(d.botMedianS, 3)} s`, d.botMedianS >= TARGETS.botCpuS);
    check(`visitor median ÷ bot median <= ${TARGETS.visitorOverBot}`, f(d.ratio, 2), has ? d.ratio <= TARGETS.visitorOverBot : undefined);
  }
  fs.rmSync(tmp, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  L.killAllNow();
  process.exit(1);
});
