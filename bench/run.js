'use strict';
// `npm run bench` — builds the app, measures the bare node:http reference and the real app in
// the same run (server on core 0, autocannon -c 50 in this process on core 1), on the embedded
// default and on PostgreSQL + Redis, profiles the API-key path and writes docs/BENCHMARKS.md.
// `npm run bench -- --quick`: bare + API-key ping on the embedded default, short runs, no doc.
// `npm run bench -- --widget`: only the widget's scenarios on the embedded default (challenge issue, solution → nonce and
// verify in turns with bare; the ping beside a key's challenges at its plan limit; RSS after a minute of challenges), printed.
// `npm run bench:memory` (`--memory`): only the footprint (RSS idle, and after a burst of logins and a minute of load) of both modes, no doc.
// Loopback only; every loop is bounded; servers are killed on the way out, even on failure.
const fs = require('node:fs');
const path = require('node:path');
const L = require('./lib');
const { markdown } = require('./profile');
const C = require('./context');
const { QUICK, PROFILE_ONLY, MEMORY_ONLY, WIDGET_ONLY, SOAK_MINUTES, KEYS, USERS, HARD_LIMIT_MS, tmpRoot, commands, MODES } = C;
const { inTurnsWithBare, runStackReferences, runBare } = require('./scenarios/api-key');
const { widgetInTurns, widgetSection, widgetTargetRows, pingDuringChallenges, challengeFootprint } = require('./scenarios/widget');
const { authMe } = require('./scenarios/jwt');
const { loginFlood, pingDuringLoginFlood, argon2Cost } = require('./scenarios/login');
const { recordingAB } = require('./scenarios/recording');
const { runSoak } = require('./scenarios/soak');
const { runFootprint, footprintRows } = require('./scenarios/footprint');
const { runProfile, groupTable } = require('./scenarios/cpu-profile');
const { report } = require('./report');

/** Every scenario of one mode on one app (and the recording A/B on two more). */
async function runMode(modeName) {
  const mode = MODES[modeName];
  const env = await mode.prepare();
  try {
    // Recording on (the default): every scenario.
    // The load comes from one address standing for many visitors: the per-visitor widget limit is lifted.
    const appEnv = L.appEnv({ ...env, USAGE_RECORDING: 'on', WIDGET_VISITOR_PER_MINUTE: '1000000' });
    let app = await L.startApp(appEnv);
    const shown = Object.entries({ NODE_ENV: 'production', ...L.appNodeEnv(), ...env, USAGE_RECORDING: 'on|off' }).map(
      ([k, v]) => `${k}=${v}`,
    );
    commands.push(
      `${shown.join(' ')} JWT_SECRET=<random> WIDGET_SECRETS=<random> MFA_ENCRYPTION_KEY=<random> BOOTSTRAP_OWNER_EMAIL=… BOOTSTRAP_OWNER_PASSWORD=… PORT=<free> \\\n  ${app.child.command}`,
    );
    const acct = await L.setupAccount(app.port, { keyCount: KEYS, userCount: WIDGET_ONLY ? 0 : USERS });
    L.log(`${modeName}: ${acct.keys.length} keys, ${acct.tokens.length} members ready`);
    if (WIDGET_ONLY) {
      await widgetInTurns(modeName, app, acct, appEnv.WIDGET_SECRETS);
      await pingDuringChallenges(modeName, app, acct);
      return;
    }
    const ping = await C.scenario('API-key ping, allowed', modeName, app, C.pingAllowed(app, acct.keys));
    if (!QUICK) {
      await inTurnsWithBare(modeName, app, acct);
      await C.scenario('API-key ping, 429 (one exhausted key)', modeName, app, C.pingLimited(app, acct.limitedKey));
      await authMe(modeName, app, acct, ping.rps);
      await widgetInTurns(modeName, app, acct, appEnv.WIDGET_SECRETS);
      await pingDuringChallenges(modeName, app, acct);
      await loginFlood(modeName, app);
      await pingDuringLoginFlood(modeName, app, acct);
    }
    await L.stop(app.child);
    await recordingAB(modeName, env, acct);
  } finally {
    L.killAllNow(); // only still running when a scenario failed
    await L.sleep(200);
    await mode.cleanup().catch((e) => L.log(`cleanup of ${modeName} failed: ${e.message}`));
  }
}

let cleaningUp = false;
async function main() {
  const t0 = Date.now();
  const watchdog = setTimeout(() => {
    console.error(`bench: hard limit of ${HARD_LIMIT_MS / 60000} min reached, stopping`);
    L.killAllNow();
    process.exit(1);
  }, HARD_LIMIT_MS);
  watchdog.unref();
  L.pinSelfToLoadCore();
  C.build();
  if (MEMORY_ONLY) {
    for (const mode of Object.keys(MODES)) await runFootprint(mode);
    console.log(
      `\n| target | measured | |\n|---|---|---|\n${footprintRows()
        .map((r) => `| ${r.join(' | ')} |`)
        .join('\n')}`,
    );
    return;
  }
  if (WIDGET_ONLY) {
    await runMode('embedded');
    await challengeFootprint('embedded');
    const rows = widgetTargetRows();
    console.log(`${widgetSection()}\n| target | measured | |\n|---|---|---|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}`);
    return;
  }
  if (PROFILE_ONLY) {
    const p = await runProfile();
    console.log(`${Math.round(p.rps)} req/s while profiled\n${markdown(p.summary, { requests: p.requests })}\n\n${groupTable(p.groups)}`);
    return;
  }
  await runBare('bare node:http (start)');
  if (!QUICK) await runStackReferences();
  await runMode('embedded');
  if (!QUICK) {
    // The reference moves by up to ±10% between measurements; three give a median that one odd run does not set.
    await runBare('bare node:http (middle)');
    await runMode('pg');
  }
  await runBare('bare node:http (end)');
  if (!QUICK) {
    for (const mode of Object.keys(MODES)) await runFootprint(mode);
    await challengeFootprint('embedded');
  }
  let profile;
  let argon2;
  if (!QUICK) {
    L.log('profiling the API-key allowed path');
    profile = await runProfile();
    argon2 = await argon2Cost();
  }
  const soak = SOAK_MINUTES > 0 ? await runSoak() : undefined;
  const doc = report({ profile, argon2, soak, elapsedS: (Date.now() - t0) / 1000 });
  if (QUICK) {
    console.log(
      `\n${doc
        .split('\n## Usage')[0]
        .split('\n')
        .filter((l) => l.startsWith('|'))
        .join('\n')}`,
    );
  } else {
    fs.mkdirSync(path.join(L.ROOT, 'docs'), { recursive: true });
    fs.writeFileSync(path.join(L.ROOT, 'docs', 'BENCHMARKS.md'), doc);
    L.log(`wrote docs/BENCHMARKS.md (${C.fmt((Date.now() - t0) / 1000)} s)`);
  }
}

const onSignal = (sig) => {
  if (cleaningUp) return;
  cleaningUp = true;
  console.error(`bench: ${sig}, stopping servers`);
  L.killAllNow();
  Promise.race([MODES.pg.cleanup().catch(() => {}), L.sleep(5000)]).finally(() => process.exit(130));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
process.on('exit', () => {
  L.killAllNow();
  fs.rmSync(tmpRoot, { recursive: true, force: true });
});

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench failed: ${err.stack || err}`);
    L.killAllNow();
    process.exit(1);
  },
);
