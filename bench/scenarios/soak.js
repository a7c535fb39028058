'use strict';
// The soak: the API-key ping at full load for minutes, RSS read throughout.
const L = require('../lib');
const { SOAK_MINUTES, KEYS, MODES, pingAllowed, fmt } = require('../context');

/**
 * The soak: API-key ping at full load for SOAK_MINUTES on the embedded default, in 30 s
 * slices; RSS and req/s after each. Growth is measured from the end of minute 1 (warm) to the end.
 */
async function runSoak() {
  const env = await MODES.embedded.prepare();
  const app = await L.startApp(L.appEnv({ ...env }));
  const acct = await L.setupAccount(app.port, { keyCount: KEYS, userCount: 0 });
  L.log(`soak: ${SOAK_MINUTES} min of API-key ping`);
  const samples = [];
  const t0 = Date.now();
  // RSS every 5 s: one reading moves with where the young generation is in its cycle (docs/DECISIONS.md,
  // "Young generation"), so growth is judged on the medians of the first and last thirds of the
  // readings after minute 1, not on two readings.
  const rss = [];
  const sampler = setInterval(() => rss.push({ atS: (Date.now() - t0) / 1000, mib: L.rssMiB(app.pid) }), 5000);
  const opts = pingAllowed(app, acct.keys)();
  try {
    while (Date.now() - t0 < SOAK_MINUTES * 60_000) {
      const r = await L.cannon({ ...opts, duration: 30 });
      samples.push({
        atS: Math.round((Date.now() - t0) / 1000),
        rps: r.requests.total / r.duration,
        rss: L.rssMiB(app.pid),
        codes: r.statusCodeStats,
      });
    }
  } finally {
    clearInterval(sampler);
  }
  await L.stop(app.child);
  const warm = rss.filter((x) => x.atS >= 60).map((x) => x.mib);
  const third = Math.max(1, Math.floor(warm.length / 3));
  const early = L.median(warm.slice(0, third));
  const late = L.median(warm.slice(-third));
  L.log(`  RSS median ${fmt(early)} MiB in the first third after minute 1 -> ${fmt(late)} MiB in the last third (${warm.length} readings)`);
  return { samples, early, late, readings: warm.length, growth: late / early - 1, requests: samples.reduce((a, x) => a + x.rps * 30, 0) };
}

function soakSection(soak) {
  if (!soak) return '_No soak in this run (`--soak-minutes N`; the full run soaks 10 minutes)._';
  return `API-key ping at full load (50 connections, ${KEYS} keys, recording on) on the embedded default for ${SOAK_MINUTES} minutes, in
30 s slices (${fmt(soak.requests / 1e6, 2)} M requests). RSS read every 5 s; after minute 1, the median of the first third of the
${soak.readings} readings was ${fmt(soak.early)} MiB and of the last third ${fmt(soak.late)} MiB (**${fmt(soak.growth * 100, 1)}%**). A single
reading moves with the young generation's cycle (docs/DECISIONS.md, "Young generation"), so two readings cannot judge growth. The limiter keeps one counter per key and endpoint (no per-hit data); the API-key cache one
entry per key.

| after s | req/s | RSS MiB |
|---|---|---|
${soak.samples.map((x) => `| ${x.atS} | ${fmt(x.rps)} | ${fmt(x.rss)} |`).join('\n')}`;
}

module.exports = { runSoak, soakSection };
