'use strict';
// The API-key ping: the bare node:http reference, the stack reference servers, and the app beside them in turns
// (the ratio and 429 targets).
const L = require('../lib');
const {
  TIMING,
  REDIS_URL,
  REDIS_PREFIX,
  commands,
  url,
  scenario,
  pingAllowed,
  pingLimited,
  referenceKeys,
  fmt,
  shares,
} = require('../context');

// The ratio and 429 targets: rounds of bare, app, reference server and 429 path in turns. Nine, not five: on a
// machine that switched between a fast and a half-speed phase, single rounds of one build ranged
// 0.35–1.09 × bare (docs/PERFORMANCE.md, "How to measure"), and a median of five moved with them.
const TURN_ROUNDS = 9;
const turns = {}; // mode -> { referenceLabel, rounds: [{ bare, app, reference, limited }] } (see inTurnsWithBare)

/** The reference servers the two ratio targets are read against, as BENCHMARKS.md names them. */
const REDIS_REFERENCE = 'minimal guard, counter in Redis';
const CONTRACT_REFERENCE = "the stack run as Gatehouse runs it, with the contract's response head";

/**
 * The performance targets' comparisons, measured in turns: the bare reference, the app's allowed path,
 * the reference server the ratio target is best read against (embedded, the stack reference: the
 * stack run as Gatehouse runs it, answering with the headers of docs/API.md; with PostgreSQL + Redis,
 * the Redis reference: the minimal guard with its counter in Redis) and the app's 429
 * path (its exhausted key) are all up, and each round measures them one after another for one run
 * each, the others stopped. On these shared machines the speed of a core moves by up to ±30% within
 * a minute, and not alike for a tiny server and a large one (docs/PERFORMANCE.md, "How to
 * measure"): a ratio of measurements seconds apart, taken five times, says more than one of
 * measurements minutes apart. (A window that ends within a 429 run lets that key's next 6,000
 * requests through: a few percent of one run at most, shown in BENCHMARKS.md's answers.)
 */
async function inTurnsWithBare(modeName, app, acct) {
  const [referenceMode, referenceLabel] = modeName === 'pg' ? ['guard-redis', REDIS_REFERENCE] : ['stack-contract', CONTRACT_REFERENCE];
  const bare = await L.startBare();
  const reference = await L.startStackReference(referenceMode, { REDIS_URL, REDIS_KEY_PREFIX: `${REDIS_PREFIX}turns:` });
  const referenceOpts = pingAllowed(reference, referenceKeys());
  L.log(`${modeName}: bare, app, reference (${referenceLabel}) and the app's 429 path in turns, ${TURN_ROUNDS} rounds`);
  try {
    const limitedOpts = pingLimited(app, acct.limitedKey);
    await L.cannon({ ...referenceOpts(), duration: TIMING.warmup });
    await L.cannon({ url: url(bare.port), duration: TIMING.warmup });
    await L.cannon({ ...limitedOpts(), duration: TIMING.warmup }); // spends the key's window
    // The same app twice (allowed, then 429): inTurns continues a side before its run and stops it after.
    // Each of the two comparisons is of neighbours in time: the bare reference beside the app's allowed
    // path, that beside its 429 path (the reference server last, or first in the reversed rounds).
    const [b, a, l, ref] = await L.inTurns(
      [
        { pid: bare.pid, opts: () => ({ url: url(bare.port) }) },
        { pid: app.pid, opts: pingAllowed(app, acct.keys) },
        { pid: app.pid, opts: limitedOpts },
        { pid: reference.pid, opts: referenceOpts },
      ],
      { rounds: TURN_ROUNDS, duration: TIMING.duration, quietWaitS: Math.min(5, TIMING.quietWaitS) },
    );
    const rounds = b.map((x, i) => ({ bare: x, app: a[i], reference: ref[i], limited: l[i] }));
    turns[modeName] = { referenceLabel, rounds };
    for (const r of rounds) {
      L.log(
        `  bare ${Math.round(r.bare.rps)}, app ${Math.round(r.app.rps)} (${fmt(r.app.rps / r.bare.rps, 2)} ×, p99 ${r.app.p99} ms, ${fmt(r.app.cpuUsPerReq, 1)} µs), reference ${Math.round(r.reference.rps)} (${fmt(r.reference.rps / r.bare.rps, 2)} ×), 429 ${fmt(r.limited.cpuUsPerReq, 1)} µs ${JSON.stringify(r.limited.codes)}`,
      );
    }
  } finally {
    await Promise.all([L.stop(bare.child), L.stop(reference.child)]);
  }
}

/**
 * NestJS + Fastify alone, with a minimal key guard in three forms, and with the stack
 * Gatehouse keeps (passport strategy + @nestjs/throttler) in two (bench/reference-server.js): what the
 * stack costs before our code.
 */
async function runStackReferences() {
  const keys = referenceKeys();
  for (const [mode, label] of [
    ['route', 'NestJS + Fastify route (stack reference)'],
    ['guard', 'NestJS + Fastify + minimal key guard (stack reference)'],
    ['guard-deferred', 'NestJS + Fastify + minimal key guard, answering after I/O polling (stack reference)'],
    ['guard-redis', 'NestJS + Fastify + minimal key guard, counter in Redis: one EVALSHA per request (stack reference)'],
    ['stack', 'NestJS + Fastify + @nestjs/passport AuthGuard + ThrottlerGuard, O(1) storage answering after I/O polling (stack reference)'],
    ['stack-lean', 'NestJS + Fastify + passport strategy and ThrottlerGuard run as Gatehouse runs them (stack reference)'],
    [
      'stack-contract',
      "NestJS + Fastify + passport strategy and ThrottlerGuard run as Gatehouse runs them, with the contract's response head (stack reference)",
    ],
  ]) {
    const reference = await L.startStackReference(mode, { REDIS_URL, REDIS_KEY_PREFIX: `${REDIS_PREFIX}reference:` });
    commands.push(reference.child.command);
    await scenario(label, 'reference', reference, pingAllowed(reference, keys));
    await L.stop(reference.child);
  }
}

async function runBare(label) {
  const bare = await L.startBare();
  if (label === 'bare node:http (start)') commands.push(`${bare.child.command}`);
  await scenario(label, 'reference', bare, () => ({ url: `${url(bare.port)}/api/v1/public/ping` }));
  await L.stop(bare.child);
}

/** The rounds in turns behind the ratio targets' verdicts, each round's req/s and ratios. */
function turnsSection() {
  const modes = Object.keys(turns);
  if (!modes.length) return '';
  const lines = modes.flatMap((m) =>
    turns[m].rounds.map(
      (r, i) =>
        `| ${m} | ${i + 1} | ${fmt(r.bare.rps)} | ${fmt(r.app.rps)} | **${fmt(r.app.rps / r.bare.rps, 2)}** | ${fmt(r.app.p99)} | ${fmt(r.app.cpuUsPerReq, 1)} / ${fmt(r.bare.cpuUsPerReq, 1)} | ${fmt(r.reference.rps)} (${turns[m].referenceLabel}) | ${fmt(r.reference.rps / r.bare.rps, 2)} | ${fmt(r.limited.cpuUsPerReq, 1)} (${shares(r.limited.codes)}) | ${fmt(Math.max(r.bare.other, r.app.other, r.reference.other, r.limited.other), 2)} |`,
    ),
  );
  return `
**How the ratio and 429 targets are judged.** Right after the API-key scenario of each mode, the bare
reference, the app and a stack reference server are all up and measured in turns with the app's 429 path (its exhausted
key), ${TURN_ROUNDS} rounds of one ${TIMING.duration} s run each (1 s warm-up, the other servers stopped with SIGSTOP; the order bare,
app, app's 429 path, reference server, reversed every other round). A round's ratio divides the app's req/s by the bare reference's
run just before or after it, and its 429 comparison divides the 429 path's CPU µs per request by the allowed path's run
beside it; each
verdict is the median of the rounds. The app ÷ reference figure beside a verdict divides the app's req/s by that server's
in the same round: where it is about 1, the app costs what that server costs, and the ratio to the bare reference is
that server's. It is the figure a change to the request path must not lower (docs/PERFORMANCE.md, "Budget"). The single
scenarios in the big table compare measurements minutes apart, and on machines whose speed moves within a minute
their ratios move with it (docs/PERFORMANCE.md, "How to measure").

| mode | round | bare req/s | app req/s | app × bare | app p99 ms | CPU µs/req app / bare | reference req/s | reference × bare | 429 path: CPU µs/req (answers) | other load (max) |
|---|---|---|---|---|---|---|---|---|---|---|
${lines.join('\n')}
`;
}

module.exports = { REDIS_REFERENCE, CONTRACT_REFERENCE, turns, inTurnsWithBare, runStackReferences, runBare, turnsSection };
