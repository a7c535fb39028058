'use strict';
// Compares builds of Gatehouse on the API-key path, for a change too small for `npm run bench` to
// see: `npm run bench:ab -- HEAD~1 worktree` (or any git revisions; `worktree` is the working tree,
// uncommitted changes included). A side may add environment variables: `worktree:USAGE_RECORDING=off`.
// A side named twice is built once and started twice (`beca275 worktree beca275 worktree`): what
// differs between starts of one build shows beside what differs between builds.
// `worktree:pg` runs that side on PostgreSQL + Redis (127.0.0.1; a database made for the run and
// dropped after it, keys under their own prefix) instead of the embedded default.
// `bare` adds the bare node:http reference and `stack:<mode>` a bench/reference-server.js mode, so that
// the performance targets' ratios can be read per round, each against a reference measured seconds apart
// (`npm run bench:ab -- bare worktree stack:stack-lean`); the table then gives each side's req/s
// as a multiple of the bare reference's in the same round. `stack:<mode>:app-flags` runs that reference server
// with the node flags of this checkout's `start:prod`, as the app runs (reference servers run with V8's own
// settings otherwise).
//
// Each side is built into a temporary directory (a git revision whose package-lock.json differs from this
// checkout's gets its own locked dependencies, ~1 minute more) and started once (embedded default, 400 keys, as
// bench/run.js), then measured in turns — one side runs while the others are stopped (SIGSTOP) —
// so the machine's drift hits every side alike. Besides req/s and CPU µs per request, it counts
// the instructions the server executes per request with `perf stat` where the kernel allows it:
// they move by ~1% between measurements where req/s moves by 10–25% (docs/PERFORMANCE.md).
//
// Options: --rounds N (default 4), --duration S (per measurement, default 4), --scenario allowed|limited|jwt|verify,
// --load wrk: the timed runs' load comes from wrk (Debian's package; one thread, 50 connections, on the load core)
// instead of autocannon in this process. wrk costs its core several times less a request, so the server's core,
// not the load generator, sets the pace even for the bare reference; warm-ups stay autocannon's.
// `jwt` is GET /auth/me rotating the tokens of 400 members (each signed in by invitation, as bench/run.js's
// JWT scenario), within their allowance at up to ~4,000 req/s; not with the bare or stack sides. `verify` is
// POST /nonces/verify of a made-up nonce with the keys: a request with a JSON body, answered `unknown` from
// its signature alone (no database); a `stack:stack*` side answers the same request from its own verify route
// (the stack's cost of a validated JSON body), and `bare` stays the GET reference the targets' ratios are of.
//
// --callgrind, for machines where perf cannot count (`perf stat -e instructions true` says "not
// supported"): every side runs under valgrind's callgrind instead, and each round counts the
// instructions of the server's main thread over a fixed number of requests (--requests N, default
// 4000; 10 connections, 20 keys, 30,000 requests of warm-up). Only those counts are reported:
// under valgrind a server runs ~100× slower, so its req/s mean nothing. Counts stay within ~3%
// between rounds; a round that lands on a background optimisation or a flush reads higher, so
// compare the lowest or the median (docs/PERFORMANCE.md, "How to measure"). A side takes 2–4
// minutes to start under valgrind. With --scenario limited, at valgrind's pace the one key's
// minute window can end within a round: each round first spends more than a window's allowance
// (7,000 uncounted requests against the enterprise plan's 6,000), and a round that still got any
// answer but 429 is counted again, up to three times.
// --profile DIR (with --callgrind): the servers run with `node --perf-basic-prof`, and after the
// rounds each side is counted once more and its dump read by bench/callgrind-report.js into
// DIR/<side>.md: where its instructions went, by package and by function (the dump and the perf
// map are kept beside it: `node bench/callgrind-report.js` reads them again).
// --cpu-profile DIR (timed runs): the servers run with bench/cpu-profile-preload.js, and after the rounds each
// side is profiled by V8's sampling profiler over 8 s of the same load; DIR/<side>.cpuprofile, and
// DIR/compare.md: self time by module in µs a request, side by side (real time, kernel excluded).
// Not with `:pg` sides: tried once, the app under valgrind answered 503 while the bench created its
// keys (probably a client timeout toward PostgreSQL or Redis at that pace; not investigated).
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const L = require('./lib');
const { report } = require('./callgrind-report');
const { summarize } = require('./profile');

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv.splice(i, 2)[1] : fallback;
};
const ROUNDS = Number(option('rounds', 4));
const DURATION = Number(option('duration', 4));
const SCENARIO = option('scenario', 'allowed');
const MADE_UP_NONCE = JSON.stringify({ nonce: 'ghn_made-up-by-the-benchmark' });
const CALLGRIND = argv.includes('--callgrind') && argv.splice(argv.indexOf('--callgrind'), 1).length > 0;
const REQUESTS = Number(option('requests', 4000));
if (CALLGRIND) L.setRequestTimeout(600_000);
const LOAD = option('load', 'autocannon');
const PROFILE = option('profile', undefined);
if (PROFILE && !CALLGRIND) {
  console.error('bench:ab: --profile needs --callgrind');
  process.exit(2);
}
const CPU_PROFILE = option('cpu-profile', undefined);
if (CPU_PROFILE && CALLGRIND) {
  console.error('bench:ab: --cpu-profile is for timed runs, not --callgrind (use --profile there)');
  process.exit(2);
}
const PROFILE_FLAGS = PROFILE ? ['--perf-basic-prof'] : CPU_PROFILE ? ['-r', path.join(__dirname, 'cpu-profile-preload.js')] : [];
if (CALLGRIND && argv.some((spec) => spec.split(':')[1] === 'pg')) {
  console.error('bench:ab: --callgrind measures the embedded default only (see the comment at the top of bench/ab.js)');
  process.exit(2);
}
const specs = argv.length ? argv : ['HEAD', 'worktree'];
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-ab-'));

const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });

/** Each revision's build directory: a revision named twice is built once and started twice. */
const builds = new Map();

function build(rev) {
  if (!builds.has(rev)) builds.set(rev, buildOnce(rev));
  return builds.get(rev);
}

/**
 * A built copy of `rev` (dist/, prisma/, package.json). node_modules is this checkout's, linked, unless `rev` is a
 * git revision whose package-lock.json differs: then its own locked dependencies are installed, so that a
 * dependency it ran with (a Fastify or Nest release) is measured as it was, not this checkout's.
 */
function buildOnce(rev) {
  const dir = fs.mkdtempSync(path.join(tmpRoot, 'build-'));
  if (rev === 'worktree') {
    for (const f of ['src', 'prisma', 'package.json', 'prisma.config.ts', 'tsconfig.json', 'tsconfig.build.json']) {
      fs.cpSync(path.join(L.ROOT, f), path.join(dir, f), {
        recursive: true,
        filter: (p) => !p.includes(`${path.sep}generated${path.sep}`),
      });
    }
  } else {
    run('sh', ['-c', `git archive ${JSON.stringify(rev)} | tar -x -C ${JSON.stringify(dir)}`], L.ROOT);
  }
  const lock = path.join(dir, 'package-lock.json');
  const ownLock =
    rev !== 'worktree' && fs.existsSync(lock) && !fs.readFileSync(lock).equals(fs.readFileSync(path.join(L.ROOT, 'package-lock.json')));
  if (ownLock) {
    L.log(`${rev}: its package-lock.json differs from this checkout's; installing its own dependencies`);
    run('npm', ['ci', '--no-audit', '--no-fund'], dir);
  } else fs.symlinkSync(path.join(L.ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  run(path.join(dir, 'node_modules/.bin/prisma'), ['generate'], dir);
  try {
    run(path.join(dir, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], dir);
  } catch (err) {
    // tsc writes the JavaScript, which is what runs, even where an old revision's types no longer check.
    if (!fs.existsSync(path.join(dir, 'dist/main.js'))) throw err;
    L.log(`${rev}: type errors; built anyway`);
  }
  return dir;
}

/** Instructions (user, kernel) the process executes until `stop()`; undefined where perf cannot count. */
function countInstructions(pid) {
  let out = '';
  let perf;
  try {
    perf = spawn('perf', ['stat', '-x,', '-e', 'instructions:u,instructions:k', '-p', String(pid)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch {
    return { stop: async () => undefined };
  }
  perf.on('error', () => {});
  perf.stderr.on('data', (d) => (out += d));
  const closed = new Promise((resolve) => perf.on('close', resolve));
  return {
    async stop() {
      perf.kill('SIGINT');
      await closed;
      const counts = out
        .split('\n')
        .filter((l) => l.includes('instructions'))
        .map((l) => Number(l.split(',')[0]));
      return counts.length === 2 && counts.every(Number.isFinite) ? { user: counts[0], kernel: counts[1] } : undefined;
    },
  };
}

/**
 * Instructions of the server's main thread, and of all its threads (V8's GC helpers and libuv's pool
 * besides), counted by callgrind until `stop()`; with `keepAs`, the main thread's dump is copied there
 * before the dumps are deleted.
 */
function countCallgrind(pid, keepAs) {
  execFileSync('callgrind_control', ['-z', String(pid)], { stdio: 'ignore' });
  return {
    async stop() {
      execFileSync('callgrind_control', ['-d', String(pid)], { stdio: 'ignore' });
      // --separate-threads=yes: one file per dump and thread (callgrind.<pid>.<dump>-<thread>); thread 1 is the event loop.
      const files = fs.readdirSync(tmpRoot).filter((f) => f.startsWith(`callgrind.${pid}.`));
      const dumpOf = (f) => Number(f.split('.')[2].split('-')[0]);
      const last = Math.max(...files.map(dumpOf));
      const summaryOf = (f) => Number(fs.readFileSync(path.join(tmpRoot, f), 'utf8').match(/^summary: (\d+)/m)?.[1] ?? NaN);
      const main = files.find((f) => dumpOf(f) === last && f.endsWith('-01'));
      const user = summaryOf(main);
      const allThreads = files.filter((f) => dumpOf(f) === last).reduce((sum, f) => sum + (summaryOf(f) || 0), 0);
      if (keepAs) fs.copyFileSync(path.join(tmpRoot, main), keepAs);
      for (const f of files) fs.rmSync(path.join(tmpRoot, f));
      return Number.isFinite(user) ? { user, kernel: 0, allThreads } : undefined;
    },
  };
}

/**
 * One counted round of a running side under callgrind: k instructions per request of its main
 * thread (the dump kept as `keepAs`, if given). First, uncounted: timers that came due while the
 * side was stopped (usage and lastUsed flushes) fire; on the limited path, also whatever is left of
 * the window's allowance. A round with any answer but the scenario's is counted again, up to 3 times.
 */
async function callgrindRound(side, keepAs) {
  const expected = SCENARIO === 'limited' ? '429' : '200';
  for (let attempt = 1; ; attempt++) {
    await L.cannon({ ...side.opts(), amount: SCENARIO === 'limited' ? 7000 : 1000, connections: 10 });
    const counter = countCallgrind(side.app.pid, keepAs);
    const result = await L.cannon({ ...side.opts(), amount: REQUESTS, connections: 10 });
    const counts = await counter.stop();
    const counted = { main: counts.user / REQUESTS / 1000, all: counts.allThreads / REQUESTS / 1000 };
    if (Object.keys(result.statusCodeStats ?? {}).every((code) => code === expected)) return counted;
    if (attempt === 3)
      throw new Error(`${side.spec}: rounds keep getting answers other than ${expected}: ${JSON.stringify(result.statusCodeStats)}`);
    L.log(`${side.spec}: round got ${JSON.stringify(result.statusCodeStats)}; counting it again`);
  }
}

const PG_ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
const databases = [];

/** A fresh database (migrated by the build in `dir`) and Redis prefix for one side. */
async function postgresAndRedis(dir, n) {
  const name = `gatehouse_ab_${process.pid}_${n}`;
  const DATABASE_URL = await L.createDatabase(PG_ADMIN_URL, name);
  databases.push(name);
  execFileSync(path.join(L.ROOT, 'node_modules/.bin/prisma'), ['migrate', 'deploy'], {
    cwd: dir,
    env: { ...process.env, DATABASE_URL },
    stdio: 'ignore',
  });
  return { DATABASE_URL, REDIS_URL: 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: `gatehouse-ab-${process.pid}-${n}:` };
}

async function dropDatabases() {
  for (const name of databases) await L.dropDatabase(PG_ADMIN_URL, name);
}

async function main() {
  L.pinSelfToLoadCore();
  L.setLogDir(tmpRoot);
  L.setLoadGenerator(LOAD);
  if (CALLGRIND) {
    const out = path.join(tmpRoot, 'callgrind.%p');
    L.setWrapper(
      ['valgrind', '--tool=callgrind', `--callgrind-out-file=${out}`, '--smc-check=all-non-file', '--separate-threads=yes'],
      600_000,
    );
  }
  // Under callgrind a warm-up by amount (the JIT tiers up by calls, not time) and fewer keys (each of
  // the app's is made through the API, minutes for 400 under valgrind), the same number for every side.
  // With the timed runs' 400, the app counted ~3% more instructions a request.
  const KEY_COUNT = CALLGRIND ? 20 : 400;
  const warm = CALLGRIND ? { amount: 30_000, connections: 10 } : { duration: 10 };
  const sides = [];
  const referenceKeys = L.randomKeys(KEY_COUNT);
  for (const [i, given] of specs.entries()) {
    // A side named again is another start of the same build, labelled by its turn: `beca275 #2`.
    const turn = specs.slice(0, i + 1).filter((other) => other === given).length;
    const spec = turn > 1 ? `${given} #${turn}` : given;
    // A value may hold colons (`worktree:OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318`): a piece that is
    // neither `pg` nor `NAME=…` continues the variable before it.
    const [rev, ...envPairs] = given
      .split(':')
      .reduce(
        (pieces, p, i) =>
          i > 1 && pieces[pieces.length - 1].includes('=') && !/^(pg|[A-Za-z_]\w*=.*)$/.test(p)
            ? [...pieces.slice(0, -1), `${pieces[pieces.length - 1]}:${p}`]
            : [...pieces, p],
        [],
      );
    if (rev === 'bare' || rev === 'stack') {
      const flags = envPairs[1] === 'app-flags' ? [...L.appNodeFlags(L.ROOT), ...PROFILE_FLAGS] : PROFILE_FLAGS;
      const server =
        rev === 'bare'
          ? await L.startBare(PROFILE_FLAGS)
          : await L.startStackReference(envPairs[0], { REDIS_KEY_PREFIX: `gatehouse-ab-${process.pid}:` }, flags);
      const verify = SCENARIO === 'verify' && rev === 'stack';
      const opts = () => ({
        url: `http://${L.HOST}:${server.port}`,
        requests: referenceKeys.map((k) =>
          verify
            ? {
                method: 'POST',
                path: '/api/v1/nonces/verify',
                headers: { 'x-api-key': k, 'content-type': 'application/json' },
                body: MADE_UP_NONCE,
              }
            : { method: 'GET', path: rev === 'bare' ? '/' : '/api/v1/public/ping', headers: { 'x-api-key': k } },
        ),
      });
      await L.cannon({ ...opts(), ...(CALLGRIND ? warm : { duration: 5 }) });
      process.kill(server.pid, 'SIGSTOP');
      sides.push({ spec, app: server, opts, rps: [], cpu: [], instr: [], instrAll: [], p99: [] });
      continue;
    }
    const pg = envPairs[0] === 'pg';
    if (pg) envPairs.shift();
    const env = Object.fromEntries(
      envPairs
        .join(':')
        .split(',')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    L.log(`building ${rev}`);
    const dir = build(rev);
    L.setAppDir(dir);
    // The side's own variables win: `worktree:pg:REDIS_URL=` is PostgreSQL without Redis.
    if (pg) Object.assign(env, { ...(await postgresAndRedis(dir, sides.length)), ...env });
    // Under callgrind the usage flush (every 5 s of wall time) would land on a few hundred requests instead of 250,000.
    if (CALLGRIND) env.USAGE_FLUSH_INTERVAL_MS ??= '60000';
    const app = await L.startApp(L.appEnv({ DATA_DIR: fs.mkdtempSync(path.join(tmpRoot, 'data-')), ...env }), PROFILE_FLAGS);
    const acct = await L.setupAccount(app.port, { keyCount: KEY_COUNT, userCount: SCENARIO === 'jwt' ? 400 : 0 });
    const keys = SCENARIO === 'limited' ? [acct.limitedKey] : acct.keys;
    const opts = () => ({
      url: `http://${L.HOST}:${app.port}`,
      requests:
        SCENARIO === 'jwt'
          ? acct.tokens.map((t) => ({ method: 'GET', path: '/api/v1/auth/me', headers: { authorization: `Bearer ${t}` } }))
          : SCENARIO === 'verify'
            ? keys.map((k) => ({
                method: 'POST',
                path: '/api/v1/nonces/verify',
                headers: { 'x-api-key': k, 'content-type': 'application/json' },
                body: MADE_UP_NONCE,
              }))
            : keys.map((k) => ({ method: 'GET', path: '/api/v1/public/ping', headers: { 'x-api-key': k } })),
    });
    await L.cannon({ ...opts(), ...warm }); // warm: every key looked up, JIT settled
    process.kill(app.pid, 'SIGSTOP');
    sides.push({ spec, app, opts, rps: [], cpu: [], instr: [], instrAll: [], p99: [] });
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 ? [...sides].reverse() : sides) {
      process.kill(side.app.pid, 'SIGCONT');
      if (CALLGRIND) {
        const counted = await callgrindRound(side);
        side.instr.push(counted.main);
        side.instrAll.push(counted.all);
        process.kill(side.app.pid, 'SIGSTOP');
        L.log(
          `${side.spec}: ${counted.main.toFixed(1)}k instructions/req on the main thread, ${counted.all.toFixed(1)}k in all threads (callgrind)`,
        );
        continue;
      }
      await L.cannon({ ...side.opts(), duration: 1 });
      const counter = countInstructions(side.app.pid);
      await L.sleep(100);
      const m = await L.measure(side.app.pid, side.opts, { warmup: 0, duration: DURATION, runs: 1, quietWaitS: 3 });
      const instr = await counter.stop();
      process.kill(side.app.pid, 'SIGSTOP');
      side.rps.push(m.rps);
      side.cpu.push(m.cpuUsPerReq);
      side.p99.push(m.p99);
      if (instr) side.instr.push((instr.user + instr.kernel) / m.total / 1000);
      L.log(
        `${side.spec}: ${Math.round(m.rps)} req/s, ${m.cpuUsPerReq.toFixed(1)} µs/req${instr ? `, ${side.instr.at(-1).toFixed(1)}k instructions/req` : ''}`,
      );
    }
  }
  if (PROFILE) {
    fs.mkdirSync(PROFILE, { recursive: true });
    for (const side of sides) {
      process.kill(side.app.pid, 'SIGCONT');
      const name = path.join(PROFILE, side.spec.replace(/[^\w.=-]+/g, '_'));
      await callgrindRound(side, `${name}.callgrind`);
      process.kill(side.app.pid, 'SIGSTOP');
      fs.copyFileSync(`/tmp/perf-${side.app.pid}.map`, `${name}.perf-map`); // kept beside the dump, to read it again
      const out = `${name}.md`;
      const title = `# ${side.spec}: ${SCENARIO} path, one round of ${REQUESTS} requests under callgrind (bench/ab.js --profile)\n\n`;
      fs.writeFileSync(out, title + report(`${name}.callgrind`, `${name}.perf-map`, REQUESTS) + '\n');
      L.log(`${side.spec}: profile in ${out}`);
    }
  }
  if (CPU_PROFILE) await cpuProfiles(sides);
  if (CALLGRIND) {
    console.log(`\n${SCENARIO} path, callgrind, ${ROUNDS} rounds of ${REQUESTS} requests\n`);
    console.log('| build | main thread: k instructions/req, median [each round] | lowest | all threads: median [each round] |');
    console.log('|---|---|---|---|');
    const list = (xs) => xs.map((x) => x.toFixed(1)).join(' ');
    for (const s of sides) {
      process.kill(s.app.pid, 'SIGCONT');
      console.log(
        `| ${s.spec} | ${L.median(s.instr).toFixed(1)} [${list(s.instr)}] | ${Math.min(...s.instr).toFixed(1)} | ${L.median(s.instrAll).toFixed(1)} [${list(s.instrAll)}] |`,
      );
    }
    for (const s of sides) await L.stop(s.app.child, 60_000);
    return;
  }
  console.log(`\n${SCENARIO} path, ${ROUNDS} rounds of ${DURATION} s; medians [each round]\n`);
  const bare = sides.find((s) => s.spec === 'bare');
  console.log(`| build | req/s | ${bare ? '× bare, same round | ' : ''}CPU µs/req | k instructions/req | p99 ms | RSS MiB |`);
  console.log(`|---|---|${bare ? '---|' : ''}---|---|---|---|`);
  const list = (xs, d) => xs.map((x) => x.toFixed(d)).join(' ');
  for (const s of sides) {
    process.kill(s.app.pid, 'SIGCONT');
    const instr = s.instr.length ? `${L.median(s.instr).toFixed(1)} [${list(s.instr, 1)}]` : '– (perf stat unavailable)';
    const ratios = bare ? s.rps.map((r, i) => r / bare.rps[i]) : [];
    const times = bare ? ` ${L.median(ratios).toFixed(2)} [${list(ratios, 2)}] |` : '';
    console.log(
      `| ${s.spec} | ${Math.round(L.median(s.rps))} [${list(s.rps, 0)}] |${times} ${L.median(s.cpu).toFixed(1)} [${list(s.cpu, 1)}] | ${instr} | ${L.median(s.p99)} | ${L.rssMiB(s.app.pid).toFixed(0)} |`,
    );
  }
  for (const s of sides) await L.stop(s.app.child);
}

/** --cpu-profile: each side profiled over 8 s of load (after 2 s of it), and the modules' self time a request compared. */
async function cpuProfiles(sides) {
  fs.mkdirSync(CPU_PROFILE, { recursive: true });
  const perModule = [];
  for (const side of sides) {
    const out = path.join(os.tmpdir(), `cpu-${side.app.pid}.cpuprofile`); // the preload's file without CPU_PROFILE_OUT
    fs.rmSync(out, { force: true });
    process.kill(side.app.pid, 'SIGCONT');
    const { profile, requests } = await L.profileUnderLoad(side.app.pid, side.opts(), out, 2);
    process.kill(side.app.pid, 'SIGSTOP');
    const name = path.join(CPU_PROFILE, side.spec.replace(/[^\w.=-]+/g, '_'));
    fs.copyFileSync(out, `${name}.cpuprofile`);
    fs.rmSync(out);
    const summary = summarize(profile, Infinity);
    perModule.push(new Map(summary.modules.map((m) => [m.name, (m.ms * 1000) / requests])));
    L.log(`${side.spec}: CPU profile of ${requests} requests in ${name}.cpuprofile`);
  }
  const modules = [...new Set(perModule.flatMap((m) => [...m.keys()]))];
  const spread = (m) => Math.max(...perModule.map((p) => p.get(m) ?? 0)) - Math.min(...perModule.map((p) => p.get(m) ?? 0));
  modules.sort((a, b) => spread(b) - spread(a));
  const rows = modules.map((m) => `| ${m} | ${perModule.map((p) => (p.get(m) ?? 0).toFixed(2)).join(' | ')} |`);
  const totals = perModule.map((p) => [...p.values()].reduce((a, b) => a + b, 0).toFixed(2));
  const table = [
    `| module (self time, µs a request) | ${sides.map((s) => s.spec).join(' | ')} |`,
    `|---|${sides.map(() => '---|').join('')}`,
    ...rows,
    `| **total** | ${totals.join(' | ')} |`,
  ].join('\n');
  fs.writeFileSync(
    path.join(CPU_PROFILE, 'compare.md'),
    `# ${SCENARIO} path: V8 CPU profiles, 8 s of load each (bench/ab.js --cpu-profile)\n\n${table}\n`,
  );
  L.log(`modules compared in ${path.join(CPU_PROFILE, 'compare.md')}`);
}

async function finish(code) {
  L.killAllNow();
  await dropDatabases().catch((err) => console.error(`could not drop ${databases.join(', ')}: ${err.message}`));
  process.exit(code);
}

process.on('exit', () => {
  L.killAllNow();
  fs.rmSync(tmpRoot, { recursive: true, force: true });
});
main().then(
  () => finish(0),
  (err) => {
    console.error(`bench:ab failed: ${err.stack || err}`);
    return finish(1);
  },
);
