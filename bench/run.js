'use strict';
// `npm run bench` — builds the app, measures the bare node:http reference and the real app in
// the same run (server on core 0, autocannon -c 50 in this process on core 1), on the embedded
// default and on PostgreSQL + Redis, profiles the API-key path and writes docs/BENCHMARKS.md.
// `npm run bench -- --quick`: bare + API-key ping on the embedded default, short runs, no doc.
// `npm run bench -- --widget`: only the widget's turns (challenge issue, solution → nonce, beside bare) on the embedded default, printed.
// `npm run bench:memory` (`--memory`): only the footprint (RSS idle and after a minute of load) of both modes, no doc.
// Loopback only; every loop is bounded; servers are killed on the way out, even on failure.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const L = require('./lib');
const { summarize, markdown, compareGroups } = require('./profile');

const QUICK = process.argv.includes('--quick');
const PROFILE_ONLY = process.argv.includes('--profile-only'); // development: build + profile, print it
const MEMORY_ONLY = process.argv.includes('--memory');
const WIDGET_ONLY = process.argv.includes('--widget'); // `npm run bench -- --widget`: the widget's turns on the embedded default, printed
/** Widget rounds: bare, challenge issue and solution → nonce in turns (see widgetInTurns). */
const WIDGET_ROUNDS = 5;
const widgetTurns = {}; // mode -> [{ bare, challenge, redeem }]
const TIMING = QUICK ? { warmup: 2, duration: 3, runs: 3 } : { warmup: 5, duration: 5, runs: 3 };
// For developing the harness: BENCH_WARMUP / BENCH_DURATION (s) shorten runs, BENCH_QUIET_WAIT=0 skips waiting.
if (process.env.BENCH_WARMUP) TIMING.warmup = Number(process.env.BENCH_WARMUP);
if (process.env.BENCH_DURATION) TIMING.duration = Number(process.env.BENCH_DURATION);
TIMING.quietWaitS = process.env.BENCH_QUIET_WAIT ? Number(process.env.BENCH_QUIET_WAIT) : 10;
const SOAK_MINUTES = (() => {
  const i = process.argv.indexOf('--soak-minutes');
  return i > 0 ? Number(process.argv[i + 1]) : QUICK ? 0 : 10;
})();
const AB_PAIRS = QUICK ? 2 : 5;
// The ratio and 429 targets: rounds of bare, app, floor and 429 path in turns. Nine, not five: on a
// machine that switched between a fast and a half-speed phase, single rounds of one build ranged
// 0.35–1.09 × bare (docs/PERFORMANCE.md, "How to measure"), and a median of five moved with them.
const TURN_ROUNDS = 9;
const LOGIN_FLOOD_IPS = Array.from({ length: 8 }, (_, i) => `127.0.1.${i + 1}`);
const KEYS = QUICK ? 100 : 400; // x 6000 req/min each: the allowed path stays allowed
const USERS = QUICK ? 0 : 300; // x 1200 req/min each for GET /auth/me: 360,000 a minute, more than its 20 s of load send
const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const DB_NAME = `gatehouse_bench_${process.pid}`;
const REDIS_PREFIX = `gatehouse-bench-${process.pid}:`;
const KEPT_PROFILE = path.join(os.tmpdir(), 'gatehouse-bench-ping.cpuprofile'); // left for a closer look
const HARD_LIMIT_MS = (30 + SOAK_MINUTES) * 60_000;
const started = new Date();
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-bench-'));
const results = []; // { scenario, mode, ...measure() }
const turns = {}; // mode -> { floorLabel, rounds: [{ bare, app, floor, limited }] } (see inTurnsWithBare)
const footprints = {}; // mode -> runFootprint()
// The footprint targets (MiB of RSS), read as runFootprint() measures them.
const MEMORY_TARGETS = { embedded: { idle: 200, afterLoad: 300 }, pg: { idle: 150, afterLoad: 250 } };
const FOOTPRINT = { settleS: 10, loadS: 60 };
L.setLogDir(tmpRoot);
const commands = [];

const sh = (cmd, args, env) => {
  commands.push(
    `${
      env
        ? Object.entries(env)
            .map(([k, v]) => `${k}=${v} `)
            .join('')
        : ''
    }${cmd} ${args.join(' ')}`,
  );
  return execFileSync(cmd, args, {
    cwd: L.ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
  }).toString();
};

// ---------------------------------------------------------------- modes

const MODES = {
  embedded: {
    label: 'embedded (PGlite + in-process limits)',
    async prepare() {
      return { DATA_DIR: fs.mkdtempSync(path.join(tmpRoot, 'data-')) };
    },
    async cleanup() {},
  },
  pg: {
    label: 'PostgreSQL + Redis',
    async prepare() {
      const DATABASE_URL = await L.createDatabase(PG_ADMIN_URL, DB_NAME);
      sh('npx', ['prisma', 'migrate', 'deploy'], { DATABASE_URL });
      return { DATABASE_URL, REDIS_URL, REDIS_KEY_PREFIX: REDIS_PREFIX, DATA_DIR: fs.mkdtempSync(path.join(tmpRoot, 'data-')) };
    },
    async cleanup() {
      await L.dropDatabase(PG_ADMIN_URL, DB_NAME);
      const Redis = require('ioredis');
      const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      let cursor = '0';
      for (let i = 0; i < 10_000; i++) {
        const [next, found] = await redis.scan(cursor, 'MATCH', `${REDIS_PREFIX}*`, 'COUNT', 1000);
        if (found.length) await redis.del(...found);
        cursor = next;
        if (cursor === '0') break;
      }
      redis.disconnect();
    },
  },
};

// ---------------------------------------------------------------- scenarios

const url = (port) => `http://${L.HOST}:${port}`;
const rotate = (list, make) => list.map(make);

/** Measures one scenario and adds its row to the report; the row is returned for a `note`. */
async function scenario(name, mode, app, makeOpts, timing = TIMING) {
  L.log(`${mode}: ${name}`);
  const row = { scenario: name, mode, ...(await L.measure(app.pid, makeOpts, timing)) };
  results.push(row);
  L.log(
    `  ${Math.round(row.rps)} req/s [${row.rpsRuns.join(' ')}], p50 ${row.p50} ms, p99 ${row.p99} ms, ${row.cpuUsPerReq.toFixed(0)} µs CPU/req, RSS ${row.rss.toFixed(0)} MiB, other load ${row.other.toFixed(2)}, codes ${JSON.stringify(row.codes)}`,
  );
  return row;
}

/** The API-key ping on `server` (the app or a reference floor), rotating `keys`. */
const pingAllowed = (server, keys) => () => ({
  url: url(server.port),
  requests: rotate(keys, (k) => ({ method: 'GET', path: '/api/v1/public/ping', headers: { 'x-api-key': k } })),
});
/** The ping with one key, exhausted: the 429 path. */
const pingLimited = (app, key) => pingAllowed(app, [key]);

async function runMode(modeName) {
  const mode = MODES[modeName];
  const env = await mode.prepare();
  try {
    // Recording on (the default): every scenario.
    // The load comes from one address standing for many visitors: the per-visitor widget limit is lifted.
    const appEnv = L.appEnv({ ...env, USAGE_RECORDING: 'on', WIDGET_VISITOR_PER_MINUTE: '1000000' });
    let app = await L.startApp(appEnv);
    const shown = Object.entries({ NODE_ENV: 'production', ...env, USAGE_RECORDING: 'on|off' }).map(([k, v]) => `${k}=${v}`);
    commands.push(
      `${shown.join(' ')} JWT_SECRET=<random> WIDGET_SECRETS=<random> BOOTSTRAP_OWNER_EMAIL=… BOOTSTRAP_OWNER_PASSWORD=… PORT=<free> \\\n  ${app.child.command}`,
    );
    const acct = await L.setupAccount(app.port, { keyCount: KEYS, userCount: WIDGET_ONLY ? 0 : USERS });
    L.log(`${modeName}: ${acct.keys.length} keys, ${acct.tokens.length} members ready`);
    if (WIDGET_ONLY) {
      await widgetInTurns(modeName, app, acct, appEnv.WIDGET_SECRETS);
      return;
    }
    const ping = await scenario('API-key ping, allowed', modeName, app, pingAllowed(app, acct.keys));
    if (!QUICK) {
      await inTurnsWithBare(modeName, app, acct);
      await scenario('API-key ping, 429 (one exhausted key)', modeName, app, pingLimited(app, acct.limitedKey));
      // The members may send 1200 a minute each: where the warm-up and three runs would send more
      // (a fast machine; judged from the ping's rate), each phase sends a quarter of 90% of that.
      const meBudget = Math.floor((acct.tokens.length * 1200 * 0.9) / 4);
      const meAmount = ping.rps * Math.max(TIMING.warmup, TIMING.duration) > meBudget ? meBudget : undefined;
      await scenario(`JWT GET /auth/me (${acct.tokens.length} users)`, modeName, app, () => ({
        url: url(app.port),
        ...(meAmount ? { amount: meAmount } : {}),
        requests: rotate(acct.tokens, (t) => ({ method: 'GET', path: '/api/v1/auth/me', headers: { authorization: `Bearer ${t}` } })),
      }));
      const nonces = await widgetInTurns(modeName, app, acct, appEnv.WIDGET_SECRETS);
      // Verify each issued nonce once: warm-up and the three runs each get a quarter of them.
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
      await scenario('login flood (POST /auth/login, right password)', modeName, app, () => ({
        url: url(app.port),
        requests: [
          { method: 'POST', path: '/api/v1/auth/login', headers: { 'content-type': 'application/json' }, body: JSON.stringify(L.OWNER) },
        ],
      }));
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
challenge signed with the app's secret and a known number, checked by the app as any other, and buys one nonce (a database
insert). Medians of the rounds: ${modes.map((m) => `${m}: challenge issue ${verdict(m, 'challenge', 0.5)}, solution → nonce ${verdict(m, 'redeem', 0.3)}`).join('; ')}.

| mode | round | bare req/s | challenge req/s | × bare | CPU µs/req | solution → nonce req/s | × bare | CPU µs/req | answers |
|---|---|---|---|---|---|---|---|---|---|
${lines.join('\n')}
`;
}

/** The reference servers the two ratio targets are read against, as BENCHMARKS.md names them. */
const REDIS_FLOOR = 'minimal guard, counter in Redis';
const CONTRACT_FLOOR = "the stack run as Gatehouse runs it, with the contract's response head";

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
  const [floorMode, floorLabel] = modeName === 'pg' ? ['guard-redis', REDIS_FLOOR] : ['stack-contract', CONTRACT_FLOOR];
  const bare = await L.startBare();
  const floor = await L.startFloor(floorMode, { REDIS_URL, REDIS_KEY_PREFIX: `${REDIS_PREFIX}turns:` });
  const floorOpts = pingAllowed(floor, floorKeys());
  L.log(`${modeName}: bare, app, floor (${floorLabel}) and the app's 429 path in turns, ${TURN_ROUNDS} rounds`);
  try {
    const limitedOpts = pingLimited(app, acct.limitedKey);
    await L.cannon({ ...floorOpts(), duration: TIMING.warmup });
    await L.cannon({ url: url(bare.port), duration: TIMING.warmup });
    await L.cannon({ ...limitedOpts(), duration: TIMING.warmup }); // spends the key's window
    // The same app twice (allowed, then 429): inTurns continues a side before its run and stops it after.
    // Each of the two comparisons is of neighbours in time: the bare reference beside the app's allowed
    // path, that beside its 429 path (the reference server last, or first in the reversed rounds).
    const [b, a, l, f] = await L.inTurns(
      [
        { pid: bare.pid, opts: () => ({ url: url(bare.port) }) },
        { pid: app.pid, opts: pingAllowed(app, acct.keys) },
        { pid: app.pid, opts: limitedOpts },
        { pid: floor.pid, opts: floorOpts },
      ],
      { rounds: TURN_ROUNDS, duration: TIMING.duration, quietWaitS: Math.min(5, TIMING.quietWaitS) },
    );
    const rounds = b.map((x, i) => ({ bare: x, app: a[i], floor: f[i], limited: l[i] }));
    turns[modeName] = { floorLabel, rounds };
    for (const r of rounds) {
      L.log(
        `  bare ${Math.round(r.bare.rps)}, app ${Math.round(r.app.rps)} (${fmt(r.app.rps / r.bare.rps, 2)} ×, p99 ${r.app.p99} ms, ${fmt(r.app.cpuUsPerReq, 1)} µs), floor ${Math.round(r.floor.rps)} (${fmt(r.floor.rps / r.bare.rps, 2)} ×), 429 ${fmt(r.limited.cpuUsPerReq, 1)} µs ${JSON.stringify(r.limited.codes)}`,
      );
    }
  } finally {
    await Promise.all([L.stop(bare.child), L.stop(floor.child)]);
  }
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

const floorKeys = () => L.randomKeys(KEYS);

/**
 * NestJS + Fastify alone, with a minimal key guard in three forms, and with the stack
 * Gatehouse keeps (passport strategy + @nestjs/throttler) in two (bench/floor-server.js): what the
 * stack costs before our code.
 */
async function runFloors() {
  const keys = floorKeys();
  for (const [mode, label] of [
    ['route', 'NestJS + Fastify route (stack floor)'],
    ['guard', 'NestJS + Fastify + minimal key guard (stack floor)'],
    ['guard-deferred', 'NestJS + Fastify + minimal key guard, answering after I/O polling (stack floor)'],
    ['guard-redis', 'NestJS + Fastify + minimal key guard, counter in Redis: one EVALSHA per request (stack floor)'],
    ['stack', 'NestJS + Fastify + @nestjs/passport AuthGuard + ThrottlerGuard, O(1) storage answering after I/O polling (stack floor)'],
    ['stack-lean', 'NestJS + Fastify + passport strategy and ThrottlerGuard run as Gatehouse runs them (stack floor)'],
    [
      'stack-contract',
      "NestJS + Fastify + passport strategy and ThrottlerGuard run as Gatehouse runs them, with the contract's response head (stack floor)",
    ],
  ]) {
    const floor = await L.startFloor(mode, { REDIS_URL, REDIS_KEY_PREFIX: `${REDIS_PREFIX}floor:` });
    commands.push(floor.child.command);
    await scenario(label, 'reference', floor, pingAllowed(floor, keys));
    await L.stop(floor.child);
  }
}

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

/**
 * The footprint of `modeName` as a deployment sees it: a fresh app (its own data directory or
 * database) started as `npm run start:prod` starts it, RSS (VmRSS) after FOOTPRINT.settleS idle; then KEYS keys
 * are created and the API-key ping runs at full load for FOOTPRINT.loadS, and RSS is read again.
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
      L.log(
        `${modeName}: footprint, RSS ${fmt(idle)} MiB idle, ${fmt(afterSetup)} MiB with ${acct.keys.length} keys; ${FOOTPRINT.loadS} s of API-key ping`,
      );
      const r = await L.cannon({ ...pingAllowed(app, acct.keys)(), duration: FOOTPRINT.loadS });
      const fp = { idle, afterSetup, afterLoad: L.rssMiB(app.pid), peak: L.peakRssMiB(app.pid), rps: r.requests.total / r.duration };
      footprints[modeName] = fp;
      L.log(`  RSS ${fmt(fp.afterLoad)} MiB after load (peak ${fmt(fp.peak)} MiB), ${fmt(fp.rps)} req/s`);
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
        `RSS after load, ${label}: <= ${t.afterLoad} MiB`,
        `${fmt(fp.afterLoad)} MiB after ${FOOTPRINT.loadS} s of API-key ping at ${fmt(fp.rps)} req/s (peak ${fmt(fp.peak)} MiB)`,
        verdict(fp.afterLoad <= t.afterLoad),
      ],
    ];
  });
}

async function runBare(label) {
  const bare = await L.startBare();
  if (label === 'bare node:http (start)') commands.push(`${bare.child.command}`);
  await scenario(label, 'reference', bare, () => ({ url: `${url(bare.port)}/api/v1/public/ping` }));
  await L.stop(bare.child);
}

/**
 * Runs the allowed-path load on `server` (started with bench/cpu-profile-preload.js) and profiles 8 s
 * of it, after 10 s of warm-up: the app's first look-up of each of the keys is a database read
 * (~3 ms of CPU each on the embedded default), and those must be over before the window opens.
 */
async function profileUnderLoad(server, out, keys) {
  const opts = pingAllowed(server, keys)();
  await L.cannon({ ...opts, duration: 10 });
  process.kill(server.pid, 'SIGWINCH');
  const r = await L.cannon({ ...opts, duration: 8 });
  process.kill(server.pid, 'SIGWINCH');
  for (let i = 0; i < 100 && !fs.existsSync(out); i++) await L.sleep(100);
  await L.sleep(500);
  await L.stop(server.child);
  return { profile: JSON.parse(fs.readFileSync(out, 'utf8')), requests: r.requests.total, rps: r.requests.total / r.duration };
}

/**
 * CPU profiles of the API-key allowed path, load window only: the app (embedded), and the stack's
 * own floor run as Gatehouse runs it (floor-server.js stack-lean), under the same load.
 */
async function runProfile() {
  const preload = ['-r', path.join(__dirname, 'cpu-profile-preload.js')];
  const out = path.join(tmpRoot, 'ping.cpuprofile');
  const env = await MODES.embedded.prepare();
  const app = await L.startApp(L.appEnv({ ...env, CPU_PROFILE_OUT: out }), preload);
  commands.push(`${app.child.command}   # profile: SIGWINCH starts/stops the V8 sampling profiler (as --cpu-prof)`);
  const acct = await L.setupAccount(app.port, { keyCount: KEYS, userCount: 0 });
  const ping = await profileUnderLoad(app, out, acct.keys);
  fs.copyFileSync(out, KEPT_PROFILE);
  const floorOut = path.join(tmpRoot, 'floor.cpuprofile');
  const floor = await L.startFloor('stack-lean', { CPU_PROFILE_OUT: floorOut }, preload);
  commands.push(`${floor.child.command}   # profile, as above`);
  const stackFloor = await profileUnderLoad(floor, floorOut, floorKeys());
  return { ...ping, summary: summarize(ping.profile, 18), groups: compareGroups(stackFloor, ping), floorRps: stackFloor.rps };
}

async function argon2Cost() {
  const { hashPassword, verifyPassword } = require(path.join(L.appDir(), 'dist/auth/passwords.js'));
  const hash = await hashPassword(L.OWNER.password);
  const times = [];
  for (let i = 0; i < 10; i++) {
    const t0 = process.hrtime.bigint();
    await verifyPassword(hash, L.OWNER.password);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return L.median(times);
}

// ---------------------------------------------------------------- report

function versions() {
  const pkg = (name) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(L.ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
    } catch {
      return '?';
    }
  };
  const osName =
    (/PRETTY_NAME="([^"]+)"/.exec(fs.existsSync('/etc/os-release') ? fs.readFileSync('/etc/os-release', 'utf8') : '') || [])[1] ||
    os.type();
  let pgVersion = '?';
  let redisVersion = '?';
  try {
    pgVersion = execFileSync('psql', [PG_ADMIN_URL, '-Atc', 'show server_version']).toString().trim();
  } catch {
    // no psql or no server: the report says "?"
  }
  try {
    redisVersion = (/redis_version:(\S+)/.exec(execFileSync('redis-cli', ['-u', REDIS_URL, 'info', 'server']).toString()) || [])[1];
  } catch {
    // as above
  }
  const pkgs = [
    '@nestjs/core',
    '@nestjs/platform-fastify',
    'fastify',
    '@nestjs/passport',
    'passport',
    '@nestjs/throttler',
    '@prisma/client',
    '@electric-sql/pglite',
    'pg',
    'ioredis',
    'argon2',
    'autocannon',
  ];
  return [
    `- Node ${process.version}, ${osName} (kernel ${os.release()}), ${os.cpus().length} × ${os.cpus()[0].model}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
    `- PostgreSQL ${pgVersion}, Redis ${redisVersion}`,
    `- ${pkgs.map((p) => `${p} ${pkg(p)}`).join(', ')}`,
    `- gatehouse commit ${builtFrom}`,
  ].join('\n');
}

const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '–');
const range = (xs) => `${fmt(Math.min(...xs), 2)}–${fmt(Math.max(...xs), 2)}`;
function shares(codes) {
  const total = Object.values(codes).reduce((a, b) => a + b, 0) || 1;
  return Object.entries(codes)
    .sort()
    .map(([c, n]) => `${c}: ${((100 * n) / total).toFixed(n === total ? 0 : 1)}%`)
    .join(', ');
}

function targets(bare, soak) {
  const find = (mode, prefix) => results.find((r) => r.mode === mode && r.scenario.startsWith(prefix));
  const ratio = (r) => (r ? r.rps / bare : NaN);
  const verdict = (ok) => (ok === undefined ? '–' : ok ? 'met' : '**not met**');
  const rows = [];
  const allowed = { embedded: find('embedded', 'API-key ping, allowed'), pg: find('pg', 'API-key ping, allowed') };
  // The reference server each ratio is best read against, measured in this run (see the rows below the table).
  const floorNote = (label, prefix) => {
    const r = find('reference', prefix);
    return r ? ` (${label}: ${fmt(ratio(r), 2)} ×)` : '';
  };
  const redisFloor = floorNote(REDIS_FLOOR, 'NestJS + Fastify + minimal key guard, counter in Redis');
  const contractFloor = floorNote(
    CONTRACT_FLOOR,
    "NestJS + Fastify + passport strategy and ThrottlerGuard run as Gatehouse runs them, with the contract's",
  );
  // The verdict is the median of the rounds in turns; the single scenario's ratio is shown beside it.
  const inTurns = (mode) => {
    const t = turns[mode];
    if (!t) return undefined;
    const app = t.rounds.map((r) => r.app.rps / r.bare.rps);
    const floor = t.rounds.map((r) => r.floor.rps / r.bare.rps);
    const ofFloor = t.rounds.map((r) => r.app.rps / r.floor.rps);
    const p99 = L.median(t.rounds.map((r) => r.app.p99));
    // Three decimals where two would round across a target's line (0.547 is not 0.55).
    return {
      ratio: L.median(app),
      p99,
      text:
        `**${fmt(L.median(app), 3)} ×** [${range(app)}], p99 ${fmt(p99)} ms: median of ${app.length} rounds in turns ` +
        `(${t.floorLabel}: ${fmt(L.median(floor), 3)} × [${range(floor)}]; the app ÷ that floor per round: median ${fmt(L.median(ofFloor), 2)} [${range(ofFloor)}])`,
    };
  };
  const single = (r, floor) => `; the scenario alone: ${fmt(ratio(r), 2)} ×, p99 ${fmt(r.p99)} ms${floor}`;
  const pgTurns = inTurns('pg');
  const embeddedTurns = inTurns('embedded');
  if (allowed.pg && pgTurns)
    rows.push([
      'API-key request, PostgreSQL + Redis: >= 0.40 × bare, p99 <= 10 ms',
      pgTurns.text + single(allowed.pg, redisFloor),
      verdict(pgTurns.ratio >= 0.4 && pgTurns.p99 <= 10),
    ]);
  if (allowed.embedded && embeddedTurns)
    rows.push([
      'API-key request, embedded: >= 0.55 × bare',
      embeddedTurns.text + single(allowed.embedded, contractFloor),
      verdict(embeddedTurns.ratio >= 0.55),
    ]);
  // In turns: the median of each round's 429 µs over its allowed µs (within 5%: CPU µs move by more
  // than that between runs); the scenarios alone beside it.
  for (const mode of Object.keys(MODES)) {
    const over = find(mode, 'API-key ping, 429');
    const t = turns[mode];
    if (!over || !allowed[mode] || !t) continue;
    const q = t.rounds.map((r) => r.limited.cpuUsPerReq / r.app.cpuUsPerReq);
    const med = (k) => L.median(t.rounds.map((r) => r[k].cpuUsPerReq));
    rows.push([
      `429 costs no more than an allowed request (${mode}, CPU µs/request)`,
      `**${fmt(med('limited'), 1)} vs ${fmt(med('app'), 1)}**: medians of ${q.length} rounds in turns (429 ÷ allowed per round: median ${fmt(L.median(q), 2)} [${range(q)}]); the scenarios alone: ${fmt(over.cpuUsPerReq)} vs ${fmt(allowed[mode].cpuUsPerReq)}`,
      verdict(L.median(q) <= 1.05),
    ]);
  }
  for (const mode of Object.keys(MODES)) {
    const flood = find(mode, 'API-key ping during a login flood');
    if (flood) rows.push([`Login flood: API-key p99 <= 20 ms (${mode}, worst run)`, `${fmt(flood.p99)} ms`, verdict(flood.p99 <= 20)]);
  }
  rows.push(...footprintRows());
  if (soak)
    rows.push([
      `Soak (${SOAK_MINUTES} min, embedded): RSS growth < 10%`,
      `${fmt(soak.early)} → ${fmt(soak.late)} MiB (${fmt(soak.growth * 100, 1)}%; medians of the first and last thirds)`,
      verdict(soak.growth < 0.1),
    ]);
  const floors = results.filter((r) => r.scenario.includes('(stack floor)'));
  return `| target | measured | |
|---|---|---|
${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}
${floors.map((r) => `| _context: ${r.scenario.replace(' (stack floor)', '')}_ | ${fmt(ratio(r), 2)} ×, p99 ${fmt(r.p99)} ms | reference |`).join('\n')}`;
}

function groupTable(groups) {
  const total = groups.reduce((a, [, x, y]) => [a[0] + x, a[1] + y], [0, 0]);
  return `| where | stack floor µs | Gatehouse µs | difference |
|---|---|---|---|
${groups.map(([g, x, y]) => `| ${g} | ${fmt(x, 1)} | ${fmt(y, 1)} | ${y - x >= 0 ? '+' : ''}${fmt(y - x, 1)} |`).join('\n')}
| **total** | ${fmt(total[0], 1)} | ${fmt(total[1], 1)} | ${total[1] - total[0] >= 0 ? '+' : ''}${fmt(total[1] - total[0], 1)} |`;
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

/** The rounds in turns behind the ratio targets' verdicts, each round's req/s and ratios. */
function turnsSection() {
  const modes = Object.keys(turns);
  if (!modes.length) return '';
  const lines = modes.flatMap((m) =>
    turns[m].rounds.map(
      (r, i) =>
        `| ${m} | ${i + 1} | ${fmt(r.bare.rps)} | ${fmt(r.app.rps)} | **${fmt(r.app.rps / r.bare.rps, 2)}** | ${fmt(r.app.p99)} | ${fmt(r.app.cpuUsPerReq, 1)} / ${fmt(r.bare.cpuUsPerReq, 1)} | ${fmt(r.floor.rps)} (${turns[m].floorLabel}) | ${fmt(r.floor.rps / r.bare.rps, 2)} | ${fmt(r.limited.cpuUsPerReq, 1)} (${shares(r.limited.codes)}) | ${fmt(Math.max(r.bare.other, r.app.other, r.floor.other, r.limited.other), 2)} |`,
    ),
  );
  return `
**How the ratio and 429 targets are judged.** Right after the API-key scenario of each mode, the bare
reference, the app and a stack floor are all up and measured in turns with the app's 429 path (its exhausted
key), ${TURN_ROUNDS} rounds of one ${TIMING.duration} s run each (1 s warm-up, the other servers stopped with SIGSTOP; the order bare,
app, app's 429 path, floor, reversed every other round). A round's ratio divides the app's req/s by the bare reference's
run just before or after it, and its 429 comparison divides the 429 path's CPU µs per request by the allowed path's run
beside it; each
verdict is the median of the rounds. The app ÷ floor figure beside a verdict divides the app's req/s by that server's
in the same round: where it is about 1, the app costs what that server costs, and the ratio to the bare reference is
that server's. It is the figure a change to the request path must not lower (docs/PERFORMANCE.md, "Budget"). The single
scenarios in the big table compare measurements minutes apart, and on machines whose speed moves within a minute
their ratios move with it (docs/PERFORMANCE.md, "How to measure").

| mode | round | bare req/s | app req/s | app × bare | app p99 ms | CPU µs/req app / bare | floor req/s | floor × bare | 429 path: CPU µs/req (answers) | other load (max) |
|---|---|---|---|---|---|---|---|---|---|---|
${lines.join('\n')}
`;
}

function report({ profile, argon2Ms, soak, elapsedS }) {
  const bares = results.filter((r) => r.scenario.startsWith('bare node:http'));
  const bare = L.median(bares.map((r) => r.rps));
  const row = (r) =>
    `| ${r.scenario} | ${r.mode} | ${fmt(r.rps)} | ${fmt(r.rps / bare, 2)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.cpuUsPerReq, 0)} | ${fmt(r.cpuShare * 100)}% | ${fmt(r.rss)} | ${shares(r.codes)}${r.errors ? `, ${r.errors} errors` : ''}${r.note ? `; ${r.note}` : ''} | ${r.rpsRuns.join(' / ')} | ${fmt(r.other, 2)}${r.quietWaitS ? ` (waited ${r.quietWaitS} s)` : ''} |`;
  const find = (mode, s) => results.find((r) => r.mode === mode && r.scenario === s);
  const overhead = Object.keys(MODES)
    .map((m) => [m, find(m, 'API-key ping, allowed, A/B USAGE_RECORDING=on'), find(m, 'API-key ping, allowed, A/B USAGE_RECORDING=off')])
    .filter(([, on, off]) => on && off)
    .map(
      ([m, on, off]) =>
        `| ${MODES[m].label} | ${fmt(on.rps)} | ${fmt(off.rps)} | ${fmt((1 - on.rps / off.rps) * 100, 1)}% | ${fmt(on.cpuUsPerReq)} / ${fmt(off.cpuUsPerReq)} |`,
    );
  const modeNote = Object.entries(MODES)
    .map(([k, m]) => `\`${k}\` = ${m.label}`)
    .join('; ');
  return `# Benchmarks

_Generated by \`npm run bench\` (bench/run.js) on ${started.toISOString()}, in ${fmt(elapsedS)} s. Do not edit by hand: rerun the script._
${
  L.median(results.map((r) => r.other)) > 0.2
    ? `
> **This run shared the machine with other work** (median "other load" ${fmt(L.median(results.map((r) => r.other)), 2)} cores, see
> the last column): the load generator and the server lost CPU to it, so the req/s are lower bounds and the
> run-to-run spread is wide. CPU µs/request is the steadier figure. Rerun on a quiet machine for the targets.
`
    : ''
}
The bare \`node:http\` reference (bench/bare-server.js: small JSON + 3 headers) and the real app
(\`${L.appNodeCommand()}\`, as \`npm run start:prod\` runs it, NODE_ENV=production) are measured in the same run, each alone on core 0
(\`taskset -c 0\`${L.HAS_TASKSET ? '' : ' — **not available here, figures are unpinned**'}); autocannon runs in bench/run.js, pinned to core 1, with 50
connections over 127.0.0.1. Each scenario: ${TIMING.warmup} s warm-up, then ${TIMING.runs} measured runs of ${TIMING.duration} s;
the table gives medians (the last column lists the ${TIMING.runs} runs' req/s). Modes: ${modeNote}.

## Performance targets

${targets(bare, soak)}
${turnsSection()}
${widgetSection()}

The stack floor rows (bench/floor-server.js) are NestJS + Fastify with this project's versions in the same run: a bare
controller route; the same with a minimal guard (sha256 of the key, an in-memory map, an in-memory
counter, three headers); that guard answering after I/O polling (setImmediate), as Gatehouse's counters do
(docs/PERFORMANCE.md, "Answering once per loop turn"); and that guard with its counter in Redis, one EVALSHA
per request (the Redis reference). The last three are the stack Gatehouse keeps: passport-headerapikey
through @nestjs/passport, then @nestjs/throttler's guard with an O(1) storage answering after I/O polling, wired
as their documentation shows (\`AuthGuard('api-key')\`, \`ThrottlerGuard\`), run as Gatehouse runs them
(strategy on a per-request object, \`handleRequest\` called straight), and run so with the response head
docs/API.md promises on every answer (a request id, \`Vary: Origin\`, the IETF \`RateLimit-Policy\` and \`RateLimit\`
beside the three \`X-RateLimit-*\`): what the stack and the contract's headers cost before Gatehouse's own work
(key look-up, authorisation, CORS, usage counting). See "Where the time goes" below for that work.

- **× bare**: req/s divided by the bare reference of this run (median of its ${bares.length === 3 ? 'start, middle and end' : 'start and end'} measurements: ${bares.map((r) => fmt(r.rps)).join(', ')} req/s).
- **CPU µs/req**: server process utime+stime (/proc/<pid>/stat) over the run divided by the responses; **CPU** is the share of one core the server used.
- **RSS**: server VmRSS after the scenario's last run (MiB).
- **other load**: CPU (in cores, median of the runs) used meanwhile by processes other than the server and the load generator
  (from /proc/stat); before each scenario the script waits up to ${TIMING.quietWaitS} s for it to drop below 0.25. Above ~0.2 the row is disturbed.
- **answers**: share of status codes over the three runs — read it before the req/s: a 429 is a different, cheaper path.

| scenario | mode | req/s | × bare | p50 ms | p99 ms | CPU µs/req | CPU | RSS MiB | answers | req/s per run | other load |
|---|---|---|---|---|---|---|---|---|---|---|---|
${results.map(row).join('\n')}

How the scenarios get a meaningful mix of answers: the account is moved to the \`enterprise\` plan
(6000 API requests/min per key per endpoint, 1200 management requests/min per user per endpoint);
the allowed-path and nonce scenarios rotate ${KEYS} API keys (all of one account) so almost all
answers are 2xx; the 429 path uses one extra key, exhausted during the warm-up; \`/auth/me\` rotates
the JWTs of ${USERS} members (invited, and accepted from 127.0.0.2… because an anonymous route allows
30/min per client IP), and where the ping's rate says the runs would send more than their 1200 a minute,
each phase sends a fixed quarter of 90% of that instead of running for its seconds; nonce verify sends each nonce issued in the issue scenario exactly once.
Login allows 30/min per client IP, so the login flood is almost all 429 — the figure shows what a
flood costs, not how fast logins are. "API-key ping during a login flood" runs the allowed-path load
while ${LOGIN_FLOOD_IPS.length} client IPs (127.0.1.x) send right-password logins as fast as they are answered, 2 at a time
each: every IP's first 30 per minute run argon2id (at most half the cores hash at once, src/auth/passwords.ts),
the rest answer 429. The flood starts with the first measured run, so that run holds a fresh window's
burst of argon2 work; its p99 is the worst run's.

**Memory footprint** (the RSS rows of the targets table): for each mode a fresh app, started as \`npm run start:prod\`
starts it, is read ${FOOTPRINT.settleS} s after start (idle), then ${KEYS} keys are created and the API-key ping runs for ${FOOTPRINT.loadS} s at full
load (50 connections) before the second reading. \`npm run bench:memory\` measures only this, in a few minutes.
docs/DECISIONS.md, "Memory footprint", says where the memory goes.

## Usage recording overhead

API-key ping, allowed path, same build, \`USAGE_RECORDING=on\` (default) vs \`off\`: two servers up
at once (on core 0, one loaded at a time, the other stopped with SIGSTOP), ${TIMING.warmup} s warm-up each, then ${AB_PAIRS} runs each of
${TIMING.duration} s in alternation (on, off, off, on, …); all of that twice, with a fresh pair of servers started in the
other order (the first-started server measured ~7% slower with the same setting on both sides). Medians
over the ${2 * AB_PAIRS} runs of each side (rows "A/B" above). Target: less than 10% fewer req/s with recording on.

| mode | req/s on | req/s off | drop | CPU µs/req on / off |
|---|---|---|---|---|
${overhead.join('\n')}

## Soak

${soakSection(soak)}

## Password hashing

argon2id verify (m=19 MiB, t=2, p=1, src/auth/passwords.ts): **${fmt(argon2Ms, 1)} ms** per verify
(median of 10, measured in the load-generator process on core 1). A login at its limit (30/min per IP)
costs the server about ${fmt((argon2Ms * 30) / 60, 1)} ms of CPU per second per client IP.

## Where the time goes: CPU profile of the API-key allowed path

${
  profile
    ? `V8 sampling profiler (same as \`node --cpu-prof\`, started/stopped by SIGWINCH through
bench/cpu-profile-preload.js so only the 8 s load window is sampled), embedded mode, recording on,
${fmt(profile.rps)} req/s under profiling (${profile.requests} requests). Self time, grouped by module; busy ${fmt(profile.summary.totalMs)} ms,
idle ${fmt(profile.summary.idleMs)} ms. *Self*: time in the module's own code; *inclusive*: samples with the module
anywhere on the synchronous stack (async continuations start a new stack, so Nest's inclusive share
undercounts). The raw profile is left at \`${KEPT_PROFILE}\`; \`node bench/profile.js <file.cpuprofile>\`
prints these tables for any profile.

${markdown(profile.summary, { requests: profile.requests })}

### Gatehouse against the stack's own floor

The same load on \`bench/floor-server.js stack-lean\` (passport-headerapikey through @nestjs/passport's
\`PassportStrategy\`, run on a per-request object as Gatehouse runs it, then @nestjs/throttler's guard with an
O(1) in-memory storage answering after I/O polling, three headers, nothing else), profiled the same way
(${fmt(profile.floorRps)} req/s under profiling). Self time per request in µs, grouped by whose code it is;
sampling inflates both columns alike. V8 puts some of the same native work (socket writes, promise jobs)
under \`nextTick\` in one profile and under native frames in the other, so read the Node + V8 row as one.

${groupTable(profile.groups)}`
    : '_Not profiled in this run._'
}

## Commands

\`\`\`sh
${commands
  .join('\n')
  .replaceAll(tmpRoot, '$BENCH_TMP')
  .replaceAll(L.ROOT + '/', '')}
# load (in-process autocannon, equivalent to):
${L.HAS_TASKSET ? 'taskset -c 1 ' : ''}npx autocannon -c 50 -d ${TIMING.duration} -H 'x-api-key: <key i>' http://127.0.0.1:<port>/api/v1/public/ping
\`\`\`

## Versions

${versions()}
`;
}

// ---------------------------------------------------------------- main

/**
 * `npm run build` into a private directory: the same two steps (prisma generate, then tsc with
 * tsconfig.build.json, which is what `nest build` runs), but with --outDir in the temp dir, so a
 * concurrent build in the checkout (which deletes dist/) cannot pull the app from under the run.
 */
/** The commit the build was made from, read when it was made (the checkout may change during the run). */
let builtFrom = '?';

function build() {
  try {
    const dirty = execFileSync('git', ['status', '--porcelain', 'src'], { cwd: L.ROOT }).toString().trim();
    builtFrom =
      execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: L.ROOT }).toString().trim() +
      (dirty ? ' (src/ had uncommitted changes)' : '');
  } catch {
    /* not a git checkout */
  }
  const app = path.join(tmpRoot, 'app');
  L.log(`building into ${app}/dist (prisma generate + tsc -p tsconfig.build.json)`);
  sh('npx', ['prisma', 'generate']);
  sh(path.join(L.ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json', '--outDir', path.join(app, 'dist')]);
  commands[commands.length - 1] = `npm run build   # here: ${commands[commands.length - 1].replace(L.ROOT + '/', '')}`;
  fs.cpSync(path.join(L.ROOT, 'prisma'), path.join(app, 'prisma'), { recursive: true });
  fs.symlinkSync(path.join(L.ROOT, 'node_modules'), path.join(app, 'node_modules'));
  L.setAppDir(app);
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
  build();
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
    console.log(widgetSection());
    return;
  }
  if (PROFILE_ONLY) {
    const p = await runProfile();
    console.log(`${Math.round(p.rps)} req/s while profiled\n${markdown(p.summary, { requests: p.requests })}\n\n${groupTable(p.groups)}`);
    return;
  }
  await runBare('bare node:http (start)');
  if (!QUICK) await runFloors();
  await runMode('embedded');
  if (!QUICK) {
    // The reference moves by up to ±10% between measurements; three give a median that one odd run does not set.
    await runBare('bare node:http (middle)');
    await runMode('pg');
  }
  await runBare('bare node:http (end)');
  if (!QUICK) for (const mode of Object.keys(MODES)) await runFootprint(mode);
  let profile;
  let argon2Ms;
  if (!QUICK) {
    L.log('profiling the API-key allowed path');
    profile = await runProfile();
    argon2Ms = await argon2Cost();
  }
  const soak = SOAK_MINUTES > 0 ? await runSoak() : undefined;
  const doc = report({ profile, argon2Ms, soak, elapsedS: (Date.now() - t0) / 1000 });
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
    L.log(`wrote docs/BENCHMARKS.md (${fmt((Date.now() - t0) / 1000)} s)`);
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
