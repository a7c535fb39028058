'use strict';
// CPU profiles of the API-key allowed path: the app and the stack's own reference server under the same load.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const L = require('../lib');
const { summarize, compareGroups } = require('../profile');
const { KEYS, tmpRoot, commands, MODES, pingAllowed, referenceKeys, fmt } = require('../context');

const KEPT_PROFILE = path.join(os.tmpdir(), 'gatehouse-bench-ping.cpuprofile'); // left for a closer look

/**
 * Runs the allowed-path load on `server` (started with bench/cpu-profile-preload.js) and profiles 8 s
 * of it, after 10 s of warm-up: the app's first look-up of each of the keys is a database read
 * (~3 ms of CPU each on the embedded default), and those must be over before the window opens.
 */
async function profileUnderLoad(server, out, keys) {
  const profiled = await L.profileUnderLoad(server.pid, pingAllowed(server, keys)(), out, 10);
  await L.stop(server.child);
  return profiled;
}

/**
 * CPU profiles of the API-key allowed path, load window only: the app (embedded), and the stack's
 * own reference server run as Gatehouse runs it (reference-server.js stack-lean), under the same load.
 */
async function runProfile() {
  const preload = ['-r', path.join(__dirname, '..', 'cpu-profile-preload.js')];
  const out = path.join(tmpRoot, 'ping.cpuprofile');
  const env = await MODES.embedded.prepare();
  const app = await L.startApp(L.appEnv({ ...env, CPU_PROFILE_OUT: out }), preload);
  commands.push(`${app.child.command}   # profile: SIGWINCH starts/stops the V8 sampling profiler (as --cpu-prof)`);
  const acct = await L.setupAccount(app.port, { keyCount: KEYS, userCount: 0 });
  const ping = await profileUnderLoad(app, out, acct.keys);
  fs.copyFileSync(out, KEPT_PROFILE);
  const referenceOut = path.join(tmpRoot, 'stack-reference.cpuprofile');
  const reference = await L.startStackReference('stack-lean', { CPU_PROFILE_OUT: referenceOut }, preload);
  commands.push(`${reference.child.command}   # profile, as above`);
  const stackReference = await profileUnderLoad(reference, referenceOut, referenceKeys());
  return { ...ping, summary: summarize(ping.profile, 18), groups: compareGroups(stackReference, ping), referenceRps: stackReference.rps };
}

function groupTable(groups) {
  const total = groups.reduce((a, [, x, y]) => [a[0] + x, a[1] + y], [0, 0]);
  return `| where | reference server µs | Gatehouse µs | difference |
|---|---|---|---|
${groups.map(([g, x, y]) => `| ${g} | ${fmt(x, 1)} | ${fmt(y, 1)} | ${y - x >= 0 ? '+' : ''}${fmt(y - x, 1)} |`).join('\n')}
| **total** | ${fmt(total[0], 1)} | ${fmt(total[1], 1)} | ${total[1] - total[0] >= 0 ? '+' : ''}${fmt(total[1] - total[0], 1)} |`;
}

module.exports = { KEPT_PROFILE, runProfile, groupTable };
