'use strict';
// The memory footprint of each mode: RSS idle, after a burst of logins, and after a minute of load.
const L = require('../lib');
const { KEYS, MODES, pingAllowed, fmt } = require('../context');

// The footprint targets (MiB of RSS), read as runFootprint() measures them.
const MEMORY_TARGETS = { embedded: { idle: 200, afterLoad: 300 }, pg: { idle: 150, afterLoad: 250 } };
const FOOTPRINT = { settleS: 10, logins: 16, loginWidth: 8, loadS: 60 };
const footprints = {}; // mode -> runFootprint()

/**
 * The footprint of `modeName` as a deployment sees it: a fresh app (its own data directory or
 * database) started as `npm run start:prod` starts it, RSS (VmRSS) after FOOTPRINT.settleS idle; then KEYS keys
 * are created, FOOTPRINT.logins owner logins are sent FOOTPRINT.loginWidth at a time (a team opening the
 * dashboard at once; each runs argon2id on one of libuv's threads), and the API-key ping runs at full load
 * for FOOTPRINT.loadS; RSS is read after each step.
 */
async function runFootprint(modeName) {
  const mode = MODES[modeName];
  const env = await mode.prepare();
  try {
    const app = await L.startApp(L.appEnv(env));
    try {
      await L.sleep(FOOTPRINT.settleS * 1000);
      const idle = L.rssMiB(app.pid);
      const acct = await L.setupAccount(app.port, { keyCount: KEYS, userCount: 0 });
      const afterSetup = L.rssMiB(app.pid);
      await L.pool(FOOTPRINT.logins, FOOTPRINT.loginWidth, () =>
        L.expect(L.request('POST', app.port, '/api/v1/auth/login', { body: L.OWNER }), 200, 'owner login'),
      );
      const afterLogins = L.rssMiB(app.pid);
      L.log(
        `${modeName}: footprint, RSS ${fmt(idle)} MiB idle, ${fmt(afterSetup)} MiB with ${acct.keys.length} keys, ${fmt(afterLogins)} MiB after ${FOOTPRINT.logins} logins; ${FOOTPRINT.loadS} s of API-key ping`,
      );
      const r = await L.cannon({ ...pingAllowed(app, acct.keys)(), duration: FOOTPRINT.loadS });
      const fp = {
        idle,
        afterSetup,
        afterLogins,
        afterLoad: L.rssMiB(app.pid),
        peak: L.peakRssMiB(app.pid),
        rps: r.requests.total / r.duration,
      };
      footprints[modeName] = fp;
      L.log(`  RSS ${fmt(fp.afterLoad)} MiB after logins and load (peak ${fmt(fp.peak)} MiB), ${fmt(fp.rps)} req/s`);
      return fp;
    } finally {
      await L.stop(app.child);
    }
  } finally {
    await mode.cleanup().catch((e) => L.log(`cleanup of ${modeName} failed: ${e.message}`));
  }
}

/** The four footprint targets, as rows of the targets table. */
function footprintRows() {
  const verdict = (ok) => (ok ? 'met' : '**not met**');
  return Object.entries(footprints).flatMap(([mode, fp]) => {
    const t = MEMORY_TARGETS[mode];
    const label = MODES[mode].label;
    return [
      [
        `RSS idle, ${label}: <= ${t.idle} MiB`,
        `${fmt(fp.idle)} MiB (${FOOTPRINT.settleS} s after start; ${fmt(fp.afterSetup)} MiB once ${KEYS} keys were created)`,
        verdict(fp.idle <= t.idle),
      ],
      [
        `RSS after logins and load, ${label}: <= ${t.afterLoad} MiB`,
        `${fmt(fp.afterLoad)} MiB after ${FOOTPRINT.logins} logins (${fmt(fp.afterLogins)} MiB) and ${FOOTPRINT.loadS} s of API-key ping at ${fmt(fp.rps)} req/s (peak ${fmt(fp.peak)} MiB)`,
        verdict(fp.afterLoad <= t.afterLoad),
      ],
    ];
  });
}

module.exports = { MEMORY_TARGETS, FOOTPRINT, footprints, runFootprint, footprintRows };
