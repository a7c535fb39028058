'use strict';
// What every part of bench/run.js shares: its options, the run's temp directory and results, the
// commands the report lists, the two modes, the build, and the scenario and formatting helpers.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const L = require('./lib');

const QUICK = process.argv.includes('--quick');
const PROFILE_ONLY = process.argv.includes('--profile-only'); // development: build + profile, print it
const MEMORY_ONLY = process.argv.includes('--memory');
const WIDGET_ONLY = process.argv.includes('--widget'); // `npm run bench -- --widget`: the widget's turns on the embedded default, printed
const TIMING = QUICK ? { warmup: 2, duration: 3, runs: 3 } : { warmup: 5, duration: 5, runs: 3 };
// For developing the harness: BENCH_WARMUP / BENCH_DURATION (s) shorten runs, BENCH_QUIET_WAIT=0 skips waiting.
if (process.env.BENCH_WARMUP) TIMING.warmup = Number(process.env.BENCH_WARMUP);
if (process.env.BENCH_DURATION) TIMING.duration = Number(process.env.BENCH_DURATION);
TIMING.quietWaitS = process.env.BENCH_QUIET_WAIT ? Number(process.env.BENCH_QUIET_WAIT) : 10;
const SOAK_MINUTES = (() => {
  const i = process.argv.indexOf('--soak-minutes');
  return i > 0 ? Number(process.argv[i + 1]) : QUICK ? 0 : 10;
})();
const KEYS = QUICK ? 100 : 400; // x 6000 req/min each: the allowed path stays allowed
const USERS = QUICK ? 0 : 300; // x 1200 req/min each for GET /auth/me: 360,000 a minute, more than its 20 s of load send
const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const DB_NAME = `gatehouse_bench_${process.pid}`;
const REDIS_PREFIX = `gatehouse-bench-${process.pid}:`;
const HARD_LIMIT_MS = (50 + SOAK_MINUTES) * 60_000; // the full run took ~36 min with the soak before the widget scenarios added ~13
const started = new Date();
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-bench-'));
const results = []; // { scenario, mode, ...measure() }
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

/** The commit the build was made from, read when it was made (the checkout may change during the run). */
const built = { from: '?' };

/**
 * `npm run build` into a private directory: the same two steps (prisma generate, then tsc with
 * tsconfig.build.json, which is what `nest build` runs), but with --outDir in the temp dir, so a
 * concurrent build in the checkout (which deletes dist/) cannot pull the app from under the run.
 */
function build() {
  try {
    const dirty = execFileSync('git', ['status', '--porcelain', 'src'], { cwd: L.ROOT }).toString().trim();
    built.from =
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

/** The API-key ping on `server` (the app or a reference server), rotating `keys`. */
const pingAllowed = (server, keys) => () => ({
  url: url(server.port),
  requests: rotate(keys, (k) => ({ method: 'GET', path: '/api/v1/public/ping', headers: { 'x-api-key': k } })),
});
/** The ping with one key, exhausted: the 429 path. */
const pingLimited = (app, key) => pingAllowed(app, [key]);

const referenceKeys = () => L.randomKeys(KEYS);

const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '–');
const range = (xs) => `${fmt(Math.min(...xs), 2)}–${fmt(Math.max(...xs), 2)}`;
function shares(codes) {
  const total = Object.values(codes).reduce((a, b) => a + b, 0) || 1;
  return Object.entries(codes)
    .sort()
    .map(([c, n]) => `${c}: ${((100 * n) / total).toFixed(n === total ? 0 : 1)}%`)
    .join(', ');
}

module.exports = {
  QUICK,
  PROFILE_ONLY,
  MEMORY_ONLY,
  WIDGET_ONLY,
  TIMING,
  SOAK_MINUTES,
  KEYS,
  USERS,
  PG_ADMIN_URL,
  REDIS_URL,
  REDIS_PREFIX,
  HARD_LIMIT_MS,
  started,
  tmpRoot,
  results,
  commands,
  sh,
  built,
  build,
  MODES,
  url,
  rotate,
  scenario,
  pingAllowed,
  pingLimited,
  referenceKeys,
  fmt,
  range,
  shares,
};
