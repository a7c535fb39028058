'use strict';
// The widget: challenge issue and solution → nonce in turns with the bare reference, then each
// nonce issued verified once.
const L = require('../lib');
const { TIMING, url, rotate, scenario, fmt, shares } = require('../context');

/** Widget rounds: bare, challenge issue and solution → nonce in turns (see widgetInTurns). */
const WIDGET_ROUNDS = 5;
const widgetTurns = {}; // mode -> [{ bare, challenge, redeem }]

/**
 * The widget's two targets (challenge issue ≥ 0.5 × bare, solution → nonce ≥ 0.3 × bare), measured
 * in turns with the bare reference as the ping's ratio is. The solutions are of challenges made and
 * signed here with the app's WIDGET_SECRETS and a known number (altcha-lib's `number` option), so
 * the bench spends no time solving; the app checks them as any solution (signature, number, expiry,
 * key) and each buys one nonce. Returns the nonces issued, for the verify scenario.
 */
async function widgetInTurns(modeName, app, acct, widgetSecrets) {
  const { createChallenge } = require('altcha-lib/v1');
  const POOL = 250_000;
  L.log(`${modeName}: making ${POOL} signed challenges with known solutions`);
  const expires = new Date(Date.now() + 30 * 60_000);
  const solutions = [];
  for (let i = 0; i < POOL; i++) {
    const k = i % acct.keys.length;
    const number = Math.floor(Math.random() * 100_000);
    const c = await createChallenge({
      hmacKey: widgetSecrets.split(',')[0],
      number,
      maxnumber: 100_000,
      expires,
      params: { key: acct.keyIds[k] },
    });
    solutions.push({
      key: acct.keys[k],
      body: JSON.stringify({ altcha: Buffer.from(JSON.stringify({ ...c, number })).toString('base64') }),
    });
  }
  let next = 0;
  const nonces = [];
  const challengeOpts = () => ({
    url: url(app.port),
    requests: rotate(acct.keys, (k) => ({ method: 'GET', path: '/api/v1/widget/challenge', headers: { 'x-api-key': k } })),
  });
  const redeemOpts = () => ({
    url: url(app.port),
    requests: [
      {
        method: 'POST',
        path: '/api/v1/widget/nonces',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => {
          const s = solutions[next++ % POOL]; // past the pool: replays, answered 422 (shown in the codes)
          return { ...req, headers: { ...req.headers, 'x-api-key': s.key }, body: s.body };
        },
        onResponse: (status, body) => {
          if (status === 201) nonces.push(JSON.parse(body).nonce);
        },
      },
    ],
  });
  const bare = await L.startBare();
  L.log(`${modeName}: bare, challenge issue and solution → nonce in turns, ${WIDGET_ROUNDS} rounds`);
  try {
    await L.cannon({ url: url(bare.port), duration: TIMING.warmup });
    await L.cannon({ ...challengeOpts(), duration: TIMING.warmup });
    const [b, c, r] = await L.inTurns(
      [
        { pid: bare.pid, opts: () => ({ url: url(bare.port) }) },
        { pid: app.pid, opts: challengeOpts },
        { pid: app.pid, opts: redeemOpts },
      ],
      { rounds: WIDGET_ROUNDS, duration: TIMING.duration, quietWaitS: Math.min(5, TIMING.quietWaitS) },
    );
    widgetTurns[modeName] = b.map((x, i) => ({ bare: x, challenge: c[i], redeem: r[i] }));
    for (const w of widgetTurns[modeName]) {
      L.log(
        `  bare ${Math.round(w.bare.rps)}, challenge ${Math.round(w.challenge.rps)} (${fmt(w.challenge.rps / w.bare.rps, 2)} ×, ${fmt(w.challenge.cpuUsPerReq, 1)} µs), solution → nonce ${Math.round(w.redeem.rps)} (${fmt(w.redeem.rps / w.bare.rps, 2)} ×, ${fmt(w.redeem.cpuUsPerReq, 1)} µs) ${JSON.stringify(w.redeem.codes)}`,
      );
    }
  } finally {
    await L.stop(bare.child);
  }
  return nonces;
}

/** The widget section of BENCHMARKS.md (and of `--widget`'s output). */
function widgetSection() {
  const modes = Object.keys(widgetTurns);
  if (!modes.length) return '';
  const verdict = (m, side, target) => {
    const ratio = L.median(widgetTurns[m].map((w) => w[side].rps / w.bare.rps));
    return `${fmt(ratio, 2)} × bare (target ≥ ${target}: ${ratio >= target ? 'met' : 'NOT met'})`;
  };
  const lines = modes.flatMap((m) =>
    widgetTurns[m].map(
      (w, i) =>
        `| ${m} | ${i + 1} | ${fmt(w.bare.rps)} | ${fmt(w.challenge.rps)} | **${fmt(w.challenge.rps / w.bare.rps, 2)}** | ${fmt(w.challenge.cpuUsPerReq, 1)} | ${fmt(w.redeem.rps)} | **${fmt(w.redeem.rps / w.bare.rps, 2)}** | ${fmt(w.redeem.cpuUsPerReq, 1)} | ${shares(w.redeem.codes)} |`,
    ),
  );
  return `
## Widget: challenge issue and solution → nonce

Measured in turns with the bare reference (${WIDGET_ROUNDS} rounds of one ${TIMING.duration} s run each, the others stopped), 50 connections
rotating the API keys, the per-visitor limit lifted (one load address stands for many visitors). Each solution is of a
challenge signed with the app's secret and a known number, checked by the app as any other, and buys one nonce (a signed
token; the solution's single use claimed in memory, or in Redis). Medians of the rounds: ${modes.map((m) => `${m}: challenge issue ${verdict(m, 'challenge', 0.5)}, solution → nonce ${verdict(m, 'redeem', 0.3)}`).join('; ')}.

| mode | round | bare req/s | challenge req/s | × bare | CPU µs/req | solution → nonce req/s | × bare | CPU µs/req | answers |
|---|---|---|---|---|---|---|---|---|---|
${lines.join('\n')}
`;
}

/** Verifies each issued nonce once: the warm-up and the three runs each get a quarter of them. */
async function verifyEachNonce(modeName, app, acct, nonces) {
  const chunk = Math.floor(nonces.length / 4);
  let valid = 0;
  const r = await scenario(`nonce verify, each once (${chunk} per run)`, modeName, app, (phase) => {
    const slice = nonces.slice((phase === 'warmup' ? 0 : phase + 1) * chunk, (phase === 'warmup' ? 1 : phase + 2) * chunk);
    let i = 0;
    return {
      url: url(app.port),
      amount: slice.length,
      requests: [
        {
          method: 'POST',
          path: '/api/v1/nonces/verify',
          headers: { 'content-type': 'application/json' },
          setupRequest: (req) => {
            const n = i++;
            return {
              ...req,
              headers: { ...req.headers, 'x-api-key': acct.keys[n % acct.keys.length] },
              body: JSON.stringify({ nonce: slice[n % slice.length] }),
            };
          },
          onResponse: (status, body) => {
            if (status === 200 && body.includes('"valid":true')) valid++;
          },
        },
      ],
    };
  });
  r.note = `${valid} of ${chunk * 4} verifies answered valid:true`;
}

module.exports = { WIDGET_ROUNDS, widgetTurns, widgetInTurns, widgetSection, verifyEachNonce };
