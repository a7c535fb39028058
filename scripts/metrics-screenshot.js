'use strict';
// `npm run docs:metrics-screenshot` — docs/screenshots/grafana.png: the panels of
// docs/grafana-dashboard.json drawn from real /metrics scrapes, for a machine without Grafana. Builds
// the app, starts it with METRICS_PORT on a fresh embedded database, sends two minutes of mixed
// traffic (API-key pings, some over the limit; widget challenges and nonces; webhook deliveries to a
// receiver answering 200 and one answering 503), scrapes every 5 s, computes each panel's PromQL by
// hand (rate over consecutive scrapes, histogram_quantile's interpolation) and photographs a static
// page of the charts in headless Chromium.
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const L = require('../bench/lib');

const OUT = path.join(L.ROOT, 'docs/screenshots/grafana.png');
const DASHBOARD = JSON.parse(fs.readFileSync(path.join(L.ROOT, 'docs/grafana-dashboard.json'), 'utf8'));
const SCRAPE_MS = 5_000;
const RUN_MS = Number(process.env.RUN_MS ?? 120_000);

/** Prometheus text → [{name, labels, value}]. */
function parse(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) throw new Error(`not Prometheus text: ${line}`);
    const labels = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

const scrapeOnce = (port) =>
  new Promise((resolve, reject) => {
    http
      .get({ host: L.HOST, port, path: '/metrics', agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve(parse(text)));
      })
      .on('error', reject);
  });

/** Sum of `name` grouped by `by`, filtered by `where`: Map<group, value>. */
function sumBy(samples, name, by, where = {}) {
  const out = new Map();
  for (const s of samples) {
    if (s.name !== name || !Object.entries(where).every(([k, v]) => s.labels[k] === v)) continue;
    const g = by.map((k) => s.labels[k]).join(' ');
    out.set(g, (out.get(g) ?? 0) + s.value);
  }
  return out;
}

/** rate(): per-second increase of each group between consecutive scrapes. */
function rateSeries(scrapes, name, by, where, prefix = '') {
  const series = new Map();
  for (let i = 1; i < scrapes.length; i++) {
    const dt = (scrapes[i].at - scrapes[i - 1].at) / 1000;
    const before = sumBy(scrapes[i - 1].samples, name, by, where);
    for (const [g, v] of sumBy(scrapes[i].samples, name, by, where)) {
      const key = prefix + g;
      if (!series.has(key)) series.set(key, []);
      series.get(key).push([scrapes[i].at, Math.max(0, v - (before.get(g) ?? 0)) / dt]);
    }
  }
  return series;
}

/** histogram_quantile(q, sum by (le, ...by) (rate(name_bucket[...]))), with Prometheus's linear interpolation. */
function quantileSeries(scrapes, name, q, by, prefix) {
  const series = new Map();
  for (let i = 1; i < scrapes.length; i++) {
    const now = sumBy(scrapes[i].samples, `${name}_bucket`, [...by, 'le']);
    const before = sumBy(scrapes[i - 1].samples, `${name}_bucket`, [...by, 'le']);
    const groups = new Map();
    for (const [g, v] of now) {
      const parts = g.split(' ');
      const le = parts.pop();
      const key = parts.join(' ');
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push({ le: le === '+Inf' ? Infinity : Number(le), n: v - (before.get(g) ?? 0) });
    }
    for (const [key, buckets] of groups) {
      buckets.sort((a, b) => a.le - b.le);
      const total = buckets[buckets.length - 1].n;
      if (total <= 0) continue;
      const rank = q * total;
      let prevLe = 0;
      let prevN = 0;
      let value = NaN;
      for (const b of buckets) {
        if (b.n >= rank) {
          value = b.le === Infinity ? prevLe : prevLe + ((b.le - prevLe) * (rank - prevN)) / Math.max(b.n - prevN, 1e-9);
          break;
        }
        prevLe = b.le;
        prevN = b.n;
      }
      const label = prefix + key;
      if (!series.has(label)) series.set(label, []);
      series.get(label).push([scrapes[i].at, value]);
    }
  }
  return series;
}

function gaugeSeries(scrapes, name, label) {
  return new Map([[label, scrapes.map((s) => [s.at, sumBy(s.samples, name, []).get('') ?? NaN])]]);
}

/** Each panel of the dashboard JSON (by id), computed as its PromQL says. */
function panelSeries(scrapes) {
  const merge = (...maps) => new Map(maps.flatMap((m) => [...m]));
  const routeOnly = (m) => new Map([...m].filter(([k]) => !k.includes('unmatched') && !k.includes('/health')));
  return {
    1: rateSeries(scrapes, 'gatehouse_http_requests_total', ['status_class']),
    2: routeOnly(
      merge(
        quantileSeries(scrapes, 'gatehouse_http_request_duration_seconds', 0.5, ['route'], 'p50 '),
        quantileSeries(scrapes, 'gatehouse_http_request_duration_seconds', 0.99, ['route'], 'p99 '),
      ),
    ),
    3: rateSeries(scrapes, 'gatehouse_rate_limit_decisions_total', ['tracker'], { decision: 'refused' }),
    4: merge(
      rateSeries(scrapes, 'gatehouse_widget_challenges_total', ['result'], {}, 'challenge '),
      rateSeries(scrapes, 'gatehouse_nonces_verified_total', ['result'], {}, 'nonce '),
    ),
    5: rateSeries(scrapes, 'gatehouse_webhook_deliveries_total', ['outcome']),
    6: gaugeSeries(scrapes, 'nodejs_eventloop_lag_p99_seconds', 'gatehouse'),
    7: gaugeSeries(scrapes, 'process_resident_memory_bytes', 'gatehouse'),
    8: (() => {
      const hits = rateSeries(scrapes, 'gatehouse_cache_lookups_total', ['cache'], { result: 'hit' });
      const all = rateSeries(scrapes, 'gatehouse_cache_lookups_total', ['cache']);
      return new Map([...all].map(([k, pts]) => [k, pts.map(([t, v], i) => [t, v > 0 ? (hits.get(k)?.[i]?.[1] ?? 0) / v : NaN])]));
    })(),
    9: quantileSeries(scrapes, 'gatehouse_db_query_duration_seconds', 0.99, [], 'database'),
  };
}

const COLORS = ['#73bf69', '#f2cc0c', '#8ab8ff', '#ff780a', '#f2495c', '#5794f2', '#b877d9', '#fade2a', '#96d98d', '#ffa6b0'];

function fmt(v, unit) {
  if (!Number.isFinite(v)) return '';
  if (unit === 'bytes') return `${(v / 1048576).toFixed(0)} MiB`;
  if (unit === 's') return v >= 1 ? `${v.toFixed(2)} s` : `${(v * 1000).toFixed(v < 0.01 ? 2 : 1)} ms`;
  if (unit === 'percentunit') return `${(v * 100).toFixed(0)}%`;
  if (unit === 'reqps') return `${v.toFixed(v < 10 ? 1 : 0)} req/s`;
  return `${v.toFixed(v < 10 ? 2 : 0)} ops/s`;
}

/** One panel as Grafana's time series draws it: an SVG of lines, axis labels, a legend. */
function panelHtml(panel, series) {
  const W = (560 * panel.gridPos.w) / 12;
  const H = 190;
  const pad = { l: 70, r: 10, t: 10, b: 22 };
  const all = [...series.values()].flat().filter(([, v]) => Number.isFinite(v));
  const t0 = Math.min(...all.map(([t]) => t));
  const t1 = Math.max(...all.map(([t]) => t));
  const percent = panel.fieldConfig.defaults.unit === 'percentunit';
  const maxV = percent ? 1 : Math.max(...all.map(([, v]) => v)) * 1.1 || 1;
  const x = (t) => pad.l + ((t - t0) / Math.max(t1 - t0, 1)) * (W - pad.l - pad.r);
  const y = (v) => H - pad.b - (v / maxV) * (H - pad.t - pad.b);
  const unit = panel.fieldConfig.defaults.unit;
  let svg = '';
  for (let i = 0; i <= 4; i++) {
    const v = (maxV * i) / 4;
    svg += `<line x1="${pad.l}" x2="${W - pad.r}" y1="${y(v)}" y2="${y(v)}" stroke="#2c3235"/>`;
    svg += `<text x="${pad.l - 6}" y="${y(v) + 4}" text-anchor="end">${fmt(v, unit)}</text>`;
  }
  for (let i = 0; i <= 4; i++) {
    const t = t0 + ((t1 - t0) * i) / 4;
    svg += `<text x="${x(t)}" y="${H - 4}" text-anchor="middle">${new Date(t).toISOString().slice(11, 19)}</text>`;
  }
  const legend = [];
  [...series].forEach(([name, pts], i) => {
    const color = COLORS[i % COLORS.length];
    const d = pts
      .filter(([, v]) => Number.isFinite(v))
      .map(([t, v], j) => `${j === 0 ? 'M' : 'L'}${x(t).toFixed(1)},${y(v).toFixed(1)}`)
      .join(' ');
    svg += `<path d="${d}" fill="none" stroke="${color}" stroke-width="1.6"/>`;
    legend.push(`<span><i style="background:${color}"></i>${name.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</span>`);
  });
  const { w, h } = panel.gridPos;
  return `<section style="grid-column: span ${w}; grid-row: span ${h}"><h2>${panel.title}</h2>
<svg viewBox="0 0 ${W} ${H}" preserveAspectRatio="none">${svg}</svg><div class="legend">${legend.join('')}</div></section>`;
}

function pageHtml(series) {
  const panels = DASHBOARD.panels.map((p) => panelHtml(p, series[p.id] ?? new Map())).join('\n');
  return `<!doctype html><meta charset="utf-8"><title>${DASHBOARD.title}</title><style>
body { margin: 0; background: #111217; color: #ccccdc; font: 12px Inter, Helvetica, Arial, sans-serif; }
header { padding: 10px 16px; font-size: 16px; border-bottom: 1px solid #2c3235; }
header small { color: #8e8e8e; margin-left: 12px; font-size: 12px; }
main { display: grid; grid-template-columns: repeat(24, 1fr); grid-auto-rows: 30px; gap: 8px; padding: 8px; }
section { background: #181b1f; border: 1px solid #2c3235; border-radius: 2px; padding: 6px 8px; display: flex; flex-direction: column; }
h2 { font-size: 13px; font-weight: 500; margin: 0 0 4px; }
svg { flex: 1; width: 100%; font-size: 10px; fill: #8e8e8e; }
.legend { display: flex; flex-wrap: wrap; gap: 2px 12px; font-size: 11px; }
.legend i { display: inline-block; width: 14px; height: 4px; margin-right: 4px; vertical-align: middle; }
</style><header>${DASHBOARD.title}<small>docs/grafana-dashboard.json, drawn from real /metrics scrapes of one instance (scripts/metrics-screenshot.js)</small></header>
<main>${panels}</main>`;
}

async function main() {
  const { solveChallenge } = await import('altcha-lib');
  const { deriveKey } = await import('altcha-lib/algorithms/pbkdf2');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-metrics-shot-'));
  L.setLogDir(tmp);
  if (!process.argv.includes('--no-build'))
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: L.ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.statusCode = req.url === '/hooks/down' ? 503 : 200;
      res.end();
    });
  });
  await new Promise((done) => receiver.listen(0, '127.0.0.1', done));
  const hook = (p) => `http://127.0.0.1:${receiver.address().port}${p}`;
  const metricsPort = 30_000 + crypto.randomInt(20_000);
  const app = await L.startApp(
    L.appEnv({
      DATA_DIR: path.join(tmp, 'data'),
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WIDGET_VISITOR_PER_MINUTE: '100000', // one visitor here stands for many
      METRICS_PORT: String(metricsPort),
    }),
  );
  const browser = await L.launchChromium();
  try {
    const call = (method, url, body, headers = {}) => L.request(method, app.port, url, { body, headers });
    const login = await L.expect(call('POST', '/api/v1/auth/login', L.OWNER), 200, 'login');
    const auth = { authorization: `Bearer ${login.token}` };
    await L.expect(call('PUT', '/api/v1/account/plan', { plan: 'enterprise' }, auth), 200, 'enterprise plan'); // 100 pings/s per key
    const hooks = [];
    for (const p of ['/hooks/ok', '/hooks/down'])
      hooks.push((await L.expect(call('POST', '/api/v1/webhooks', { url: hook(p) }, auth), 201, 'webhook')).id);
    const key = async (body) => (await L.expect(call('POST', '/api/v1/api-keys', body, auth), 201, 'key')).key;
    const pings = await Promise.all(Array.from({ length: 8 }, (_, i) => key({ name: `Server ${i}`, scopes: ['public'] })));
    const widget = await key({ name: 'Checkout', scopes: ['widget'], challengeWaitMs: 250 });
    const verify = await key({ name: 'Order server', scopes: ['verify'] });

    const scrapes = [];
    const started = Date.now();
    let stop = false;
    const scraper = (async () => {
      while (!stop) {
        scrapes.push({ at: Date.now(), samples: await scrapeOnce(metricsPort) });
        await L.sleep(SCRAPE_MS);
      }
    })();
    // Pings at a rate that rises then falls; one key sent past its plan's limit in the middle third.
    const pinger = async (k, i) => {
      while (!stop) {
        const phase = (Date.now() - started) / RUN_MS;
        await call('GET', '/api/v1/public/ping', undefined, { 'x-api-key': k });
        if (!(i === 0 && phase > 0.33 && phase < 0.66)) await L.sleep(20 + 60 * Math.abs(phase - 0.5));
      }
    };
    const widgetFlow = async () => {
      while (!stop) {
        const c = await call('GET', '/api/v1/widget/challenge', undefined, { 'x-api-key': widget });
        if (c.status === 200 && Math.random() < 0.8) {
          // Solved as the widget does (altcha-lib's solver, its PBKDF2), in this process: the load is a few a second.
          const { counter, derivedKey } = await solveChallenge({ challenge: c.json, deriveKey });
          // One in ten sent wrong, for the failed-challenge series.
          const solution = { counter: Math.random() < 0.9 ? counter : counter + 1, derivedKey };
          const altcha = Buffer.from(JSON.stringify({ challenge: c.json, solution })).toString('base64');
          const res = await call('POST', '/api/v1/widget/nonces', { altcha }, { 'x-api-key': widget });
          if (res.status === 201) await call('POST', '/api/v1/nonces/verify', { nonce: res.json.nonce }, { 'x-api-key': verify });
        }
        await call('POST', '/api/v1/nonces/verify', { nonce: `forged-${n()}` }, { 'x-api-key': verify });
        await L.sleep(150);
      }
    };
    let counter = 0;
    const n = () => counter++;
    const webhookFlow = async () => {
      while (!stop) {
        for (const id of hooks) await call('POST', `/api/v1/webhooks/${id}/test`, undefined, auth);
        await L.sleep(1_000);
      }
    };
    const load = Promise.all([...pings.map(pinger), widgetFlow(), widgetFlow(), webhookFlow()]);
    await L.sleep(RUN_MS);
    stop = true;
    await Promise.all([load, scraper]);
    L.log(`${scrapes.length} scrapes`);

    const page = await browser.newPage({ viewport: { width: 1280, height: 1140 }, deviceScaleFactor: 1 });
    await page.setContent(pageHtml(panelSeries(scrapes)));
    fs.mkdirSync(path.dirname(OUT), { recursive: true });
    await page.screenshot({ path: OUT, fullPage: true });
    L.log(path.relative(L.ROOT, OUT));
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
