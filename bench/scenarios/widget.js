'use strict';
// The widget (ALTCHA v2, src/widget/pow.ts): challenge issue, solution → nonce and nonce verify in
// turns with the bare reference; the API-key ping with and without one key asking for challenges at
// its plan's limit; and RSS after a minute of challenge load on a fresh app.
const crypto = require('node:crypto');
const path = require('node:path');
const L = require('../lib');
const { TIMING, KEYS, MODES, url, rotate, fmt, shares } = require('../context');

/** Widget rounds: bare, challenge issue, solution → nonce and verify in turns (see widgetInTurns). */
const WIDGET_ROUNDS = 5;
/** Rounds of the ping alone and the ping beside challenges at a key's plan limit, alternating. */
const PING_ROUNDS = 6;
/** The targets (docs/PERFORMANCE.md, "Budget"): ratios to bare in the same run, the ping's p99 ratio, RSS. */
const WIDGET_TARGETS = { challenge: 0.04, redeem: 0.3, verify: 0.5, pingP99: 2, rssAfterChallenges: 300 };
/** Nonces verified per run (each once): a run ends at its duration or when these are spent. */
const VERIFY_PER_RUN = 20_000;
const VERIFY_WARMUP = 3_000;
/** Nonces issued before the turns: enough for every verify run even if the exchange runs issued none. */
const PRE_ISSUED = WIDGET_ROUNDS * (VERIFY_PER_RUN + VERIFY_WARMUP) + 5_000;
const CHALLENGE_LOAD_S = 60;

const widgetTurns = {}; // mode -> [{ bare, challenge, redeem, verify }]
const pingTurns = {}; // mode -> { rate, rounds: [{ alone, during, challenges }] }
const challengeFootprints = {}; // mode -> { idle, afterLoad, peak, rps, codes }

/**
 * Distinct solved challenges, made without a search: the built app's makeChallenge (pow.ts) signs one
 * challenge per key with the app's first WIDGET_SECRETS at MAX 0 (its counter is 0, so one PBKDF2
 * derivation here gives its derived key); the i-th solution is that key's challenge with `data.issuedAt`
 * moved back by i ms and signed again (pow.ts's challengeSignature). Each is a different challenge to the
 * app (its own signature, so its own spent-store claim) that costs it exactly the checks of any other:
 * the signature, the derived key's signature, the counter tag, expiry and the key binding. A solution's
 * body is made when autocannon sends it (one HMAC), so none is held in memory.
 */
async function solutionMaker(acct, widgetSecrets) {
  const pow = require(path.join(L.appDir(), 'dist/widget/pow.js'));
  const keys = pow.powKeys(widgetSecrets.split(',')[0]);
  const bases = [];
  for (let k = 0; k < acct.keyIds.length; k++) {
    const c = await pow.makeChallenge(keys, { binding: { key: acct.keyIds[k] }, max: 0, surge: 0, ttlMs: 60 * 60_000 });
    const p = c.parameters;
    const password = Buffer.concat([Buffer.from(p.nonce, 'hex'), Buffer.alloc(4)]); // the counter, 0, as uint32 big-endian
    const derivedKey = crypto.pbkdf2Sync(password, Buffer.from(p.salt, 'hex'), p.cost, p.keyLength, 'sha256').toString('hex');
    if (!derivedKey.startsWith(p.keyPrefix)) throw new Error('bench: the counter-0 derivation does not match the challenge’s keyPrefix');
    bases.push({ parameters: p, derivedKey, key: acct.keys[k] });
  }
  let made = 0;
  return () => {
    const i = made++;
    const b = bases[i % bases.length];
    const parameters = {
      ...b.parameters,
      data: { ...b.parameters.data, issuedAt: b.parameters.data.issuedAt - 1 - Math.floor(i / bases.length) },
    };
    const challenge = { parameters, signature: pow.challengeSignature(keys, parameters) };
    const altcha = Buffer.from(JSON.stringify({ challenge, solution: { counter: 0, derivedKey: b.derivedKey } })).toString('base64');
    return { key: b.key, body: JSON.stringify({ altcha }) };
  };
}

/**
 * The widget's three ratio targets (challenge issue ≥ 0.04 × bare, solution → nonce ≥ 0.3 ×, verify ≥
 * 0.5 ×), measured in turns with the bare reference as the ping's ratio is: WIDGET_ROUNDS rounds of one
 * run each, the other sides stopped. Solutions are made by solutionMaker (no search); the verify runs
 * verify nonces issued before the turns and by the redeem runs, each once, at most VERIFY_PER_RUN a run.
 */
async function widgetInTurns(modeName, app, acct, widgetSecrets) {
  const nextSolution = await solutionMaker(acct, widgetSecrets);
  const nonces = [];
  let nonceHead = 0;
  const redeemOpts = (amount) => () => ({
    url: url(app.port),
    ...(amount ? { amount } : {}),
    requests: [
      {
        method: 'POST',
        path: '/api/v1/widget/nonces',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => {
          const s = nextSolution();
          return { ...req, headers: { ...req.headers, 'x-api-key': s.key }, body: s.body };
        },
        onResponse: (status, body) => {
          if (status === 201) nonces.push(JSON.parse(body).nonce);
        },
      },
    ],
  });
  let verified = 0;
  let verifiedValid = 0;
  const verifyOpts = (phase) => {
    const amount = Math.min(nonces.length - nonceHead, phase === 'warmup' ? VERIFY_WARMUP : VERIFY_PER_RUN);
    let n = 0;
    return {
      url: url(app.port),
      amount: Math.max(1, amount),
      requests: [
        {
          method: 'POST',
          path: '/api/v1/nonces/verify',
          headers: { 'content-type': 'application/json' },
          setupRequest: (req) => {
            const nonce = nonces[nonceHead];
            nonces[nonceHead++] = undefined; // each nonce once; spent ones are let go
            return { ...req, headers: { ...req.headers, 'x-api-key': acct.keys[n++ % acct.keys.length] }, body: JSON.stringify({ nonce }) };
          },
          onResponse: (status, body) => {
            verified++;
            if (status === 200 && body.includes('"valid":true')) verifiedValid++;
          },
        },
      ],
    };
  };
  const challengeOpts = () => ({
    url: url(app.port),
    requests: rotate(acct.keys, (k) => ({ method: 'GET', path: '/api/v1/widget/challenge', headers: { 'x-api-key': k } })),
  });
  L.log(`${modeName}: issuing ${PRE_ISSUED} nonces for the verify runs`);
  await L.cannon(redeemOpts(PRE_ISSUED)());
  L.log(`  ${nonces.length} issued`);
  const bare = await L.startBare();
  L.log(`${modeName}: bare, challenge issue, solution → nonce and verify in turns, ${WIDGET_ROUNDS} rounds`);
  try {
    await L.cannon({ url: url(bare.port), duration: TIMING.warmup });
    await L.cannon({ ...challengeOpts(), duration: TIMING.warmup });
    const [b, c, r, v] = await L.inTurns(
      [
        { pid: bare.pid, opts: () => ({ url: url(bare.port) }) },
        { pid: app.pid, opts: challengeOpts },
        { pid: app.pid, opts: redeemOpts() },
        { pid: app.pid, opts: verifyOpts },
      ],
      { rounds: WIDGET_ROUNDS, duration: TIMING.duration, quietWaitS: Math.min(5, TIMING.quietWaitS) },
    );
    widgetTurns[modeName] = b.map((x, i) => ({ bare: x, challenge: c[i], redeem: r[i], verify: v[i] }));
    for (const w of widgetTurns[modeName]) {
      L.log(
        `  bare ${Math.round(w.bare.rps)} (${fmt(w.bare.cpuUsPerReq, 1)} µs), challenge ${Math.round(w.challenge.rps)} (${fmt(w.challenge.rps / w.bare.rps, 3)} ×, ${fmt(w.challenge.cpuUsPerReq, 1)} µs), solution → nonce ${Math.round(w.redeem.rps)} (${fmt(w.redeem.rps / w.bare.rps, 2)} ×, ${fmt(w.redeem.cpuUsPerReq, 1)} µs) ${JSON.stringify(w.redeem.codes)}, verify ${Math.round(w.verify.rps)} (${fmt(w.verify.rps / w.bare.rps, 2)} ×, ${fmt(w.verify.cpuUsPerReq, 1)} µs) ${JSON.stringify(w.verify.codes)}`,
      );
    }
    L.log(`  verify: ${verifiedValid} of ${verified} answered valid:true`);
    widgetTurns[modeName].verifyNote = `${verifiedValid} of ${verified} verifies answered valid:true`;
  } finally {
    await L.stop(bare.child);
  }
}

/**
 * The API-key ping (50 connections, rotating the keys) alone, and beside one key asking for
 * challenges at its plan's limit (its apiRequestsPerMinute, paced by autocannon's overallRate), in
 * alternating rounds on the same app. Target: the ping's p99 beside the challenges ≤ 2 × alone
 * (medians of the rounds).
 */
async function pingDuringChallenges(modeName, app, acct) {
  const login = await L.expect(L.request('POST', app.port, '/api/v1/auth/login', { body: L.OWNER }), 200, 'owner login');
  const plans = await L.expect(
    L.request('GET', app.port, '/api/v1/plans', { headers: { authorization: `Bearer ${login.token}` } }),
    200,
    'plans',
  );
  const list = Array.isArray(plans) ? plans : plans.data;
  const perMinute =
    list.find((p) => p.id === 'enterprise' || p.name === 'enterprise' || p.key === 'enterprise')?.apiRequestsPerMinute ?? 6000;
  const rate = perMinute / 60;
  const key = acct.keys[acct.keys.length - 1];
  const ping = {
    url: url(app.port),
    requests: rotate(acct.keys.slice(0, -1), (k) => ({ method: 'GET', path: '/api/v1/public/ping', headers: { 'x-api-key': k } })),
  };
  const challenges = (duration) => ({
    url: url(app.port),
    connections: 8,
    overallRate: rate,
    duration,
    requests: [{ method: 'GET', path: '/api/v1/widget/challenge', headers: { 'x-api-key': key } }],
  });
  L.log(
    `${modeName}: API-key ping alone and beside one key's challenges at its plan limit (${perMinute}/min = ${fmt(rate, 1)}/s), ${PING_ROUNDS} rounds`,
  );
  await L.cannon({ ...ping, duration: TIMING.warmup });
  const rounds = [];
  for (let i = 0; i < PING_ROUNDS; i++) {
    await L.waitQuiet(app.pid, Math.min(5, TIMING.quietWaitS));
    const during = i % 2 === 1;
    const t0 = L.cpuTicks(app.pid);
    const [p, c] = await Promise.all([
      L.cannon({ ...ping, duration: TIMING.duration }),
      during ? L.cannon(challenges(TIMING.duration)) : Promise.resolve(undefined),
    ]);
    const cpuUs = ((L.cpuTicks(app.pid) - t0) * 1e6) / L.CLK_TCK;
    const codes = (r) => Object.fromEntries(Object.entries(r.statusCodeStats || {}).map(([s, v]) => [s, v.count]));
    const row = {
      during,
      rps: p.requests.total / p.duration,
      p50: p.latency.p50,
      p99: p.latency.p99,
      cpuShare: cpuUs / 1e6 / p.duration,
      codes: codes(p),
      challenges: c && { rps: c.requests.total / c.duration, p50: c.latency.p50, p99: c.latency.p99, codes: codes(c) },
    };
    rounds.push(row);
    L.log(
      `  ping ${during ? 'beside challenges' : 'alone'}: ${Math.round(row.rps)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms${
        c
          ? `; challenges ${fmt(row.challenges.rps, 1)}/s, p50 ${row.challenges.p50} ms, p99 ${row.challenges.p99} ms ${JSON.stringify(row.challenges.codes)}`
          : ''
      }`,
    );
  }
  pingTurns[modeName] = { rate, perMinute, rounds };
}

/**
 * RSS after a minute of challenge load on a fresh app of `modeName`, started as `npm run start:prod`
 * starts it (per-visitor limit lifted: one load address stands for many visitors): read 10 s after
 * start, once KEYS keys exist, and after CHALLENGE_LOAD_S s of GET /widget/challenge at full load
 * (50 connections rotating the keys).
 */
async function challengeFootprint(modeName) {
  const mode = MODES[modeName];
  const env = await mode.prepare();
  try {
    const app = await L.startApp(L.appEnv({ ...env, WIDGET_VISITOR_PER_MINUTE: '1000000' }));
    try {
      await L.sleep(10_000);
      const idle = L.rssMiB(app.pid);
      const acct = await L.setupAccount(app.port, { keyCount: KEYS, userCount: 0 });
      const withKeys = L.rssMiB(app.pid);
      L.log(
        `${modeName}: RSS ${fmt(idle)} MiB idle, ${fmt(withKeys)} MiB with ${acct.keys.length} keys; ${CHALLENGE_LOAD_S} s of challenge load`,
      );
      const r = await L.cannon({
        url: url(app.port),
        duration: CHALLENGE_LOAD_S,
        requests: rotate(acct.keys, (k) => ({ method: 'GET', path: '/api/v1/widget/challenge', headers: { 'x-api-key': k } })),
      });
      const fp = {
        idle,
        withKeys,
        afterLoad: L.rssMiB(app.pid),
        peak: L.peakRssMiB(app.pid),
        rps: r.requests.total / r.duration,
        codes: Object.fromEntries(Object.entries(r.statusCodeStats || {}).map(([c, v]) => [c, v.count])),
      };
      challengeFootprints[modeName] = fp;
      L.log(
        `  RSS ${fmt(fp.afterLoad)} MiB after the challenge load (peak ${fmt(fp.peak)} MiB), ${fmt(fp.rps)} challenges/s ${JSON.stringify(fp.codes)}`,
      );
      return fp;
    } finally {
      await L.stop(app.child);
    }
  } finally {
    await mode.cleanup().catch((e) => L.log(`cleanup of ${modeName} failed: ${e.message}`));
  }
}

const ratioOf = (m, side) => L.median(widgetTurns[m].map((w) => w[side].rps / w.bare.rps));
const pingP99s = (m) => {
  const t = pingTurns[m];
  const alone = L.median(t.rounds.filter((r) => !r.during).map((r) => r.p99));
  const during = L.median(t.rounds.filter((r) => r.during).map((r) => r.p99));
  return { alone, during, ratio: during / alone };
};
const verdict = (ok) => (ok ? 'met' : '**not met**');

/** The widget's rows of the targets table: [target, measured, verdict]. */
function widgetTargetRows() {
  const rows = [];
  const T = WIDGET_TARGETS;
  for (const m of Object.keys(widgetTurns)) {
    for (const [side, label, target] of [
      ['challenge', 'Challenge issue (one PBKDF2 derivation)', T.challenge],
      ['redeem', 'Solution → nonce', T.redeem],
      ['verify', 'Nonce verify', T.verify],
    ]) {
      const xs = widgetTurns[m].map((w) => w[side].rps / w.bare.rps);
      const cpu = L.median(widgetTurns[m].map((w) => w[side].cpuUsPerReq));
      const byCpu = L.median(widgetTurns[m].map((w) => w.bare.cpuUsPerReq / w[side].cpuUsPerReq));
      rows.push([
        `${label}, ${m}: >= ${target} × bare`,
        `**${fmt(ratioOf(m, side), 3)} ×** [${fmt(Math.min(...xs), 3)}–${fmt(Math.max(...xs), 3)}]: median of ${xs.length} rounds in turns; ${fmt(cpu, 1)} µs CPU a request (bare's µs ÷ these per round: median ${fmt(byCpu, 3)})`,
        verdict(ratioOf(m, side) >= target),
      ]);
    }
  }
  for (const m of Object.keys(pingTurns)) {
    const p = pingP99s(m);
    rows.push([
      `API-key ping p99 beside one key's challenges at its plan limit (${pingTurns[m].perMinute}/min), ${m}: <= ${T.pingP99} × alone`,
      `${fmt(p.during, 1)} vs ${fmt(p.alone, 1)} ms (**${fmt(p.ratio, 2)} ×**; medians of ${pingTurns[m].rounds.length / 2} rounds each, alternating)`,
      verdict(p.ratio <= T.pingP99),
    ]);
  }
  for (const [m, fp] of Object.entries(challengeFootprints)) {
    rows.push([
      `RSS after ${CHALLENGE_LOAD_S} s of challenge load, ${MODES[m].label}: <= ${T.rssAfterChallenges} MiB`,
      `${fmt(fp.afterLoad)} MiB (idle ${fmt(fp.idle)}, ${fmt(fp.withKeys)} with ${KEYS} keys; peak ${fmt(fp.peak)}), ${fmt(fp.rps)} challenges/s (${shares(fp.codes)})`,
      verdict(fp.afterLoad <= T.rssAfterChallenges),
    ]);
  }
  return rows;
}

/** The widget section of BENCHMARKS.md (and of `--widget`'s output). */
function widgetSection() {
  const modes = Object.keys(widgetTurns);
  if (!modes.length && !Object.keys(pingTurns).length && !Object.keys(challengeFootprints).length) return '';
  const lines = modes.flatMap((m) =>
    widgetTurns[m].map(
      (w, i) =>
        `| ${m} | ${i + 1} | ${fmt(w.bare.rps)} (${fmt(w.bare.cpuUsPerReq, 1)}) | ${fmt(w.challenge.rps)} | **${fmt(w.challenge.rps / w.bare.rps, 3)}** | ${fmt(w.challenge.cpuUsPerReq, 1)} | ${fmt(w.redeem.rps)} | **${fmt(w.redeem.rps / w.bare.rps, 2)}** | ${fmt(w.redeem.cpuUsPerReq, 1)} | ${shares(w.redeem.codes)} | ${fmt(w.verify.rps)} | **${fmt(w.verify.rps / w.bare.rps, 2)}** | ${fmt(w.verify.cpuUsPerReq, 1)} | ${shares(w.verify.codes)} | ${fmt(Math.max(w.bare.other, w.challenge.other, w.redeem.other, w.verify.other), 2)} |`,
    ),
  );
  const pingLines = Object.entries(pingTurns).flatMap(([m, t]) =>
    t.rounds.map(
      (r, i) =>
        `| ${m} | ${i + 1} | ${r.during ? `beside ${fmt(t.rate, 1)} challenges/s` : 'alone'} | ${fmt(r.rps)} | ${fmt(r.p50)} | **${fmt(r.p99)}** | ${fmt(r.cpuShare * 100)}% | ${r.challenges ? `${fmt(r.challenges.rps, 1)}/s, p50 ${fmt(r.challenges.p50)} ms, p99 ${fmt(r.challenges.p99)} ms (${shares(r.challenges.codes)})` : '–'} |`,
    ),
  );
  const T = WIDGET_TARGETS;
  return `
## Widget: challenge issue, solution → nonce, verify

ALTCHA v2 (src/widget/pow.ts): a challenge costs one PBKDF2-SHA-256 derivation (1000 iterations, node:crypto's
asynchronous \`pbkdf2\` on libuv's pool, whose threads share core 0 with the event loop); a solution is checked with
HMACs only. Measured in turns with the bare reference (${WIDGET_ROUNDS} rounds of one ${TIMING.duration} s run each, the others stopped; the
order reversed every other round), 50 connections rotating the API keys, the per-visitor limit lifted (one load address
stands for many visitors). Challenges: GET /widget/challenge. Solutions: distinct challenges signed with the app's secret
by its own \`makeChallenge\` at MAX 0 (one derivation per key before the timed part), each re-signed with its own
\`issuedAt\`, so each is a new challenge the app checks in full (signature, key signature, counter tag, expiry, key) and
exchanges once. Verify: nonces issued before the turns and by the exchange runs, each verified once (at most
${VERIFY_PER_RUN} a run; a run ends when they are spent). Targets: challenge issue ≥ ${T.challenge} ×, solution → nonce ≥ ${T.redeem} ×,
verify ≥ ${T.verify} × bare (medians of the rounds).${modes.map((m) => (widgetTurns[m].verifyNote ? ` ${m}: ${widgetTurns[m].verifyNote}.` : '')).join('')}

| mode | round | bare req/s (CPU µs/req) | challenge req/s | × bare | CPU µs/req | solution → nonce req/s | × bare | CPU µs/req | answers | verify req/s | × bare | CPU µs/req | answers | other load (max) |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${lines.join('\n')}
${
  pingLines.length
    ? `
**API-key ping beside challenges at a key's plan limit.** The ping (50 connections, the other keys) alone and beside
one key asking GET /widget/challenge at its plan's limit (8 connections, paced by autocannon's \`overallRate\`),
alternating rounds of ${TIMING.duration} s on the same app. Target: p99 beside ≤ ${T.pingP99} × alone (medians).

| mode | round | ping | req/s | p50 ms | p99 ms | server CPU | challenges |
|---|---|---|---|---|---|---|---|
${pingLines.join('\n')}
`
    : ''
}`;
}

module.exports = {
  WIDGET_ROUNDS,
  WIDGET_TARGETS,
  widgetTurns,
  pingTurns,
  challengeFootprints,
  widgetInTurns,
  pingDuringChallenges,
  challengeFootprint,
  widgetTargetRows,
  widgetSection,
};
