'use strict';
// Logins: a flood at the login limit, the API-key ping while one runs, and argon2's cost.
const path = require('node:path');
const L = require('../lib');
const { TIMING, url, scenario, pingAllowed, shares } = require('../context');

const LOGIN_FLOOD_IPS = Array.from({ length: 8 }, (_, i) => `127.0.1.${i + 1}`);

/** Right-password logins from one address as fast as autocannon sends them: past 30 a minute, all 429. */
async function loginFlood(modeName, app) {
  await scenario('login flood (POST /auth/login, right password)', modeName, app, () => ({
    url: url(app.port),
    requests: [
      { method: 'POST', path: '/api/v1/auth/login', headers: { 'content-type': 'application/json' }, body: JSON.stringify(L.OWNER) },
    ],
  }));
}

/**
 * API-key requests while logins run at their limit. ${LOGIN_FLOOD_IPS.length} client IPs send right-password
 * logins as fast as they are answered (2 at a time each); each IP's first 30 in a minute run
 * argon2id, the rest answer 429. The flood starts with the first measured run (no warm-up), so
 * that run holds the burst of argon2 work a fresh window allows; the row's p99 is the worst run's.
 */
async function pingDuringLoginFlood(modeName, app, acct) {
  await L.waitQuiet(app.pid, TIMING.quietWaitS);
  const flood = L.flood(app.port, { method: 'POST', path: '/api/v1/auth/login', body: L.OWNER, ips: LOGIN_FLOOD_IPS, perIp: 2 });
  let row;
  try {
    const name = `API-key ping during a login flood (${LOGIN_FLOOD_IPS.length} client IPs)`;
    row = await scenario(name, modeName, app, pingAllowed(app, acct.keys), { ...TIMING, warmup: 0, quietWaitS: 0 });
  } finally {
    const codes = await flood.stop();
    if (row) {
      row.p99 = Math.max(...row.p99Runs);
      row.note = `p99 per run ${row.p99Runs.join(' / ')} ms; logins meanwhile: ${shares(codes)}`;
      L.log(`  p99 worst run ${row.p99} ms, ${row.note}`);
    }
  }
}

/** The median time of a verify and the parameters the built app hashes with ("m=…,t=…,p=…", read from a hash it made). */
async function argon2Cost() {
  const { hashPassword, verifyPassword } = require(path.join(L.appDir(), 'dist/credentials/passwords.js'));
  const hash = await hashPassword(L.OWNER.password);
  const times = [];
  for (let i = 0; i < 10; i++) {
    const t0 = process.hrtime.bigint();
    await verifyPassword(hash, L.OWNER.password);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { ms: L.median(times), parameters: hash.split('$')[3] };
}

module.exports = { LOGIN_FLOOD_IPS, loginFlood, pingDuringLoginFlood, argon2Cost };
