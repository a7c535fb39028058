'use strict';
// Usage recording on vs off: two servers of the same build measured in alternation.
const fs = require('node:fs');
const path = require('node:path');
const L = require('../lib');
const { QUICK, TIMING, KEYS, tmpRoot, results, pingAllowed } = require('../context');

const AB_PAIRS = QUICK ? 2 : 5;

/**
 * Usage recording on vs off: two servers of the same build, both up, measured in
 * alternation (on, off, off, on, …) so drift and neighbours' load hit both alike. On the embedded
 * default each gets a fresh data dir and account (PGlite opens a directory once, and the scenarios'
 * thousands of nonce and usage rows would otherwise weigh on one side only); on PostgreSQL + Redis
 * both share the database.
 */
async function recordingAB(modeName, env, acct) {
  const fresh = modeName === 'embedded';
  const sideEnv = () => (fresh ? { ...env, DATA_DIR: fs.mkdtempSync(path.join(tmpRoot, 'data-')) } : env);
  const keysOf = async (app) => (fresh ? (await L.setupAccount(app.port, { keyCount: KEYS, userCount: 0 })).keys : acct.keys);
  const sides = { on: { runs: [] }, off: { runs: [] } };
  // Two rounds with the start order swapped: with the same setting on both sides, the server
  // started first measured ~7% slower over 5 pairs (see this file's git history).
  for (const first of ['on', 'off']) {
    const names = first === 'on' ? ['on', 'off'] : ['off', 'on'];
    for (const name of names) {
      sides[name].app = await L.startApp(L.appEnv({ ...sideEnv(), USAGE_RECORDING: name }));
      sides[name].keys = await keysOf(sides[name].app);
    }
    L.log(`${modeName}: usage recording on vs off, alternating (${first} started first)`);
    await L.waitQuiet(sides.on.app.pid, TIMING.quietWaitS);
    for (const side of Object.values(sides)) await L.cannon({ ...pingAllowed(side.app, side.keys)(), duration: TIMING.warmup });
    // In turns (on, off, then off, on, …): the idle server is stopped (SIGSTOP) so its timers cannot
    // run inside the other's window, and each run waits (up to 5 s) for a quiet machine: PostgreSQL's
    // autovacuum after the write-heavy scenarios once took a whole core from a run.
    const [on, off] = await L.inTurns(
      ['on', 'off'].map((name) => ({ pid: sides[name].app.pid, opts: pingAllowed(sides[name].app, sides[name].keys) })),
      { rounds: AB_PAIRS, duration: TIMING.duration, warmup: 0, quietWaitS: Math.min(5, TIMING.quietWaitS) },
    );
    sides.on.runs.push(...on);
    sides.off.runs.push(...off);
    await Promise.all([L.stop(sides.on.app.child), L.stop(sides.off.app.child)]);
  }
  for (const [name, side] of Object.entries(sides)) {
    const runs = side.runs;
    const r = {
      scenario: `API-key ping, allowed, A/B USAGE_RECORDING=${name}`,
      mode: modeName,
      ...runs[runs.length - 1],
      ...Object.fromEntries(['rps', 'p50', 'p99', 'cpuUsPerReq', 'cpuShare', 'other'].map((k) => [k, L.median(runs.map((x) => x[k]))])),
      rpsRuns: runs.map((x) => x.rpsRuns[0]),
      codes: runs.reduce((acc, x) => {
        for (const [c, n] of Object.entries(x.codes)) acc[c] = (acc[c] || 0) + n;
        return acc;
      }, {}),
      errors: runs.reduce((a, x) => a + x.errors, 0),
      quietWaitS: 0,
    };
    results.push(r);
    L.log(
      `  ${name}: ${Math.round(r.rps)} req/s [${r.rpsRuns.join(' ')}], p99 ${r.p99} ms, ${r.cpuUsPerReq.toFixed(0)} µs CPU/req, other load ${r.other.toFixed(2)}`,
    );
  }
}

module.exports = { AB_PAIRS, recordingAB };
