'use strict';
// Shared helpers for bench/run.js and bench/profile.js: servers, loopback HTTP, account setup,
// autocannon runs with server CPU and RSS read from /proc. Plain CommonJS, no build.
const { spawn, execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');

const ROOT = path.resolve(__dirname, '..');
const HOST = '127.0.0.1';
const OWNER = { email: 'bench-owner@example.com', password: 'bench-owner-password-1' };
const MEMBER_PASSWORD = 'bench-member-password-1';
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
const HAS_TASKSET = (() => {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return os.cpus().length >= 2;
  } catch {
    return false;
  }
})();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (...args) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...args);

/** Keeps the load generator (this process, all threads) off the server's core. */
function pinSelfToLoadCore() {
  if (HAS_TASKSET) execFileSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------- servers

const children = new Set();
let appDir = ROOT; // where dist/ lives; bench/run.js builds a private copy (see build() in bench/context.js)
let logDir = os.tmpdir(); // servers' stdout/stderr files; bench/run.js uses its temp dir
let started = 0;
/** A command servers run under (bench/ab.js --callgrind: valgrind), with how long they may take to start. */
let wrapper = { argv: [], readyTimeoutMs: 90_000 };
const setWrapper = (argv, readyTimeoutMs) => {
  wrapper = { argv, readyTimeoutMs };
};
const setAppDir = (dir) => {
  appDir = dir;
};
const setLogDir = (dir) => {
  logDir = dir;
};

/** Starts `node <args>` on core 0 (taskset) and remembers it so it is killed whatever happens. */
function startNode(args, env) {
  const node = [...wrapper.argv, process.execPath, ...args];
  const cmd = HAS_TASKSET ? 'taskset' : node[0];
  const argv = HAS_TASKSET ? ['-c', '0', ...node] : node.slice(1);
  // Output goes to a file, not a pipe: the app writes its log lines synchronously, and a pipe read
  // by this process would put the load generator's core in the measurement.
  const logFile = path.join(logDir, `server-${++started}.log`);
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(cmd, argv, { cwd: appDir, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  child.output = () => {
    const text = fs.readFileSync(logFile, 'utf8');
    return text.slice(-8000);
  };
  child.command = `${HAS_TASKSET ? 'taskset -c 0 ' : ''}${[...wrapper.argv, 'node', ...args].join(' ')}`;
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child; // taskset (and valgrind) exec node: child.pid is the server's pid
}

/** Waits until `urlPath` answers one of `readyStatuses` (the server is up), or the child exits. */
async function waitHttp(child, port, urlPath, { readyStatuses = [200], timeoutMs = wrapper.readyTimeoutMs } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${child.output()}`);
    const res = await request('GET', port, urlPath).catch(() => null);
    if (res && readyStatuses.includes(res.status)) return;
    await sleep(250);
  }
  throw new Error(`server not ready on ${port}${urlPath} after ${timeoutMs} ms:\n${child.output()}`);
}

async function stop(child, timeoutMs = 10_000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

function killAllNow() {
  for (const child of children) {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/** The words of `start:prod` in the package.json of `dir` (else this checkout's). */
function startProdWords(dir) {
  const own = path.join(dir, 'package.json');
  const pkg = JSON.parse(fs.readFileSync(fs.existsSync(own) ? own : path.join(ROOT, 'package.json'), 'utf8'));
  return pkg.scripts['start:prod'].split(/\s+/);
}

/** The node flags the app runs with in production: those of `start:prod`. */
const appNodeFlags = (dir = appDir) => startProdWords(dir).filter((arg) => arg.startsWith('--'));

/** The environment `start:prod` sets before `node` (`NAME=value` words), as an object. */
const appNodeEnv = (dir = appDir) =>
  Object.fromEntries(
    startProdWords(dir)
      .filter((word) => /^[A-Z_][A-Z0-9_]*=/.test(word))
      .map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
  );

const appNodeCommand = () =>
  [...Object.entries(appNodeEnv()).map(([k, v]) => `${k}=${v}`), 'node', ...appNodeFlags(), 'dist/main.js'].join(' ');

/** The secrets and bootstrap owner every benchmarked app starts with, plus `extra`. */
function appEnv(extra) {
  return {
    JWT_SECRET: crypto.randomBytes(48).toString('base64'),
    WIDGET_SECRETS: crypto.randomBytes(48).toString('base64'),
    MFA_ENCRYPTION_KEY: crypto.randomBytes(48).toString('base64'),
    BOOTSTRAP_OWNER_EMAIL: OWNER.email,
    BOOTSTRAP_OWNER_PASSWORD: OWNER.password,
    ...extra,
  };
}

/** `n` random keys in the app's format, for the reference servers (which register any key on first sight). */
const randomKeys = (n) => Array.from({ length: n }, () => `gh_${crypto.randomBytes(24).toString('base64url')}`);

/** Runs `sql` (CREATE / DROP DATABASE) on the PostgreSQL server of `adminUrl`. */
async function adminQuery(adminUrl, sql) {
  const { Client } = require('pg');
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** Creates database `name` beside `adminUrl`'s and returns its URL. */
async function createDatabase(adminUrl, name) {
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  return adminUrl.replace(/\/[^/]*$/, `/${name}`);
}

const dropDatabase = (adminUrl, name) => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);

/** Starts the built app (dist/main.js) as `npm run start:prod` runs it and waits until /health answers. */
async function startApp(env, nodeFlags = []) {
  const port = await freePort();
  const child = startNode([...appNodeFlags(), ...nodeFlags, 'dist/main.js'], {
    NODE_ENV: 'production',
    ...appNodeEnv(),
    PORT: String(port),
    // Where the bench and the screenshots open it: the dashboard's session exchange answers only its own origin.
    PUBLIC_URL: `http://${HOST}:${port}`,
    ...env,
  });
  await waitHttp(child, port, '/health');
  return { child, port, pid: child.pid };
}

/** Starts a reference server of bench/ (`node bench/<script> <port> ...args`) and waits until it answers. */
async function startReference(script, args, readyPath, readyStatuses, env = {}, nodeFlags = []) {
  const port = await freePort();
  const child = startNode([...nodeFlags, path.join(__dirname, script), String(port), ...args], env);
  await waitHttp(child, port, readyPath, { readyStatuses });
  return { child, port, pid: child.pid };
}

const startBare = (nodeFlags = []) => startReference('bare-server.js', [], '/', [200], {}, nodeFlags);

/** A stack reference server (bench/reference-server.js): NestJS + Fastify in one of its modes (401 or 403 without a key: up too). */
const startStackReference = (mode, env, nodeFlags) =>
  startReference('reference-server.js', [mode], '/api/v1/public/ping', [200, 401, 403], env, nodeFlags);

// ---------------------------------------------------------------- /proc

function cpuTicks(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14, 15 of stat)
}

/** Busy ticks of the whole machine (all cores), from /proc/stat. */
function systemBusyTicks() {
  const [, ...v] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = v; // idle and iowait are not busy
  return user + nice + system + irq + softirq + steal;
}

/** CPU (in cores) used by everything except the server and this load generator since `from`. */
function otherLoad(pid, from) {
  const now = { at: Date.now(), sys: systemBusyTicks(), server: cpuTicks(pid), self: cpuTicks(process.pid) };
  if (!from) return { mark: now };
  const ticks = now.sys - from.sys - (now.server - from.server) - (now.self - from.self);
  return { mark: now, cores: ticks / CLK_TCK / ((now.at - from.at) / 1000) };
}

/** Waits (at most maxS seconds) until other processes use less than `cores` of CPU. */
async function waitQuiet(pid, maxS = 15, cores = 0.25) {
  let last = NaN;
  for (let i = 0; i < maxS; i++) {
    const { mark } = otherLoad(pid);
    await sleep(1000);
    last = otherLoad(pid, mark).cores;
    if (last < cores) return { waitedS: i, cores: last };
  }
  return { waitedS: maxS, cores: last };
}

/** A /proc/<pid>/status figure in MiB: VmRSS (resident now) or VmHWM (the most it has been). */
function statusMiB(pid, field) {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}
const rssMiB = (pid) => statusMiB(pid, 'VmRSS');
const peakRssMiB = (pid) => statusMiB(pid, 'VmHWM');

// ---------------------------------------------------------------- loopback HTTP for setup

/** A setup request's timeout: a login under valgrind (bench:ab --callgrind) on a busy machine takes minutes. */
let requestTimeoutMs = 30_000;
const setRequestTimeout = (ms) => (requestTimeoutMs = ms);

function request(method, port, urlPath, { body, headers = {}, localAddress } = {}) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: HOST,
        port,
        method,
        path: urlPath,
        localAddress,
        agent: false,
        timeout: requestTimeoutMs,
        headers: { ...headers, ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          let json;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode, json, text, headers: res.headers });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath} timed out`)));
    req.on('error', reject);
    req.end(data);
  });
}

async function expect(promise, status, what) {
  const res = await promise;
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text.slice(0, 300)}`);
  return res.json;
}

/** Runs `fn(i)` for i < n with at most `width` in flight. */
async function pool(n, width, fn) {
  const out = new Array(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      out[i] = await fn(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, worker));
  return out;
}

/**
 * Sends `method path body` as fast as `perIp` sequential workers per source address allow, from
 * each of `ips` (loopback addresses: the anonymous limits are per client IP), until `stop()`,
 * which resolves to the status counts.
 */
function flood(port, { method, path: urlPath, body, ips, perIp }) {
  const codes = {};
  let running = true;
  const worker = async (localAddress) => {
    while (running) {
      const res = await request(method, port, urlPath, { body, localAddress }).catch(() => ({ status: 'error' }));
      codes[res.status] = (codes[res.status] || 0) + 1;
    }
  };
  const done = Promise.all(ips.flatMap((ip) => Array.from({ length: perIp }, () => worker(ip))));
  return {
    async stop() {
      running = false;
      await done;
      return codes;
    },
  };
}

/**
 * Owner JWT, enterprise plan, `keyCount` API keys (all scopes; 6000 req/min each per endpoint),
 * one extra key for the 429 path, and `userCount` members with their JWTs. Invitations are
 * accepted from 127.0.0.2, 127.0.0.3, ... since an anonymous route allows 30/min per client IP.
 */
async function setupAccount(port, { keyCount, userCount }) {
  const login = await expect(request('POST', port, '/api/v1/auth/login', { body: OWNER }), 200, 'owner login');
  const auth = { authorization: `Bearer ${login.token}` };
  await expect(request('PUT', port, '/api/v1/account/plan', { body: { plan: 'enterprise' }, headers: auth }), 200, 'enterprise plan');
  const created = await pool(keyCount + 1, 8, async (i) => {
    const res = await expect(request('POST', port, '/api/v1/api-keys', { body: { name: `bench-${i}` }, headers: auth }), 201, 'create key');
    return { key: res.key, id: res.id };
  });
  const limitedKey = created.pop().key;
  const keys = created.map((k) => k.key);
  const keyIds = created.map((k) => k.id);
  const tokens = await pool(userCount, 4, async (i) => {
    const email = `bench-member-${i}@example.com`;
    const inv = await expect(
      request('POST', port, '/api/v1/team/invitations', { body: { email, role: 'ANALYST' }, headers: auth }),
      201,
      'invite',
    );
    const localAddress = `127.0.0.${2 + Math.floor(i / 25)}`;
    const res = await expect(
      request('POST', port, '/api/v1/auth/invitations/accept', { body: { token: inv.token, password: MEMBER_PASSWORD }, localAddress }),
      200,
      'accept invitation',
    );
    return res.token;
  });
  return { ownerToken: login.token, keys, keyIds, limitedKey, tokens };
}

// ---------------------------------------------------------------- autocannon

/** The load generator of timed runs: 'autocannon' (in this process) or 'wrk' (bench/ab.js --load wrk). */
let loadGenerator = 'autocannon';
const setLoadGenerator = (name) => {
  if (name !== 'autocannon' && name !== 'wrk') throw new Error(`unknown load generator ${name}`);
  if (name === 'wrk') {
    try {
      execFileSync('wrk', ['-v'], { stdio: 'ignore' }); // prints its version, exits 1
    } catch (err) {
      if (err.code === 'ENOENT') throw new Error('wrk is not installed: apt-get install wrk', { cause: err });
    }
  }
  loadGenerator = name;
};

const luaString = (s) => `"${String(s).replace(/[\\"]/g, '\\$&').replace(/\n/g, '\\n')}"`;

/**
 * A timed run of `wrk` (one thread, on this process's core): the same requests as autocannon's, in
 * turn, prepared once in its Lua `init`, so that it does no per-request work beyond HTTP. Returns
 * what measure() reads of an autocannon result; status codes only as 2xx/3xx and others.
 */
async function wrkRun(opts) {
  const dir = fs.mkdtempSync(path.join(logDir, 'wrk-'));
  const script = path.join(dir, 'requests.lua');
  const requests = (opts.requests ?? [{ method: 'GET', path: new URL(opts.url).pathname }]).map((r) => {
    const headers = Object.entries(r.headers ?? {})
      .map(([k, v]) => `[${luaString(k)}] = ${luaString(v)}`)
      .join(', ');
    return `wrk.format(${luaString(r.method ?? 'GET')}, ${luaString(r.path ?? '/')}, { ${headers} }${r.body === undefined ? '' : `, ${luaString(r.body)}`})`;
  });
  fs.writeFileSync(
    script,
    `local built, i = {}, 0
function init(args)
  built = { ${requests.join(',\n    ')} }
end
function request()
  i = i % #built + 1
  return built[i]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK {"total":%d,"us":%d,"p50":%d,"p99":%d,"other":%d,"errors":%d,"timeouts":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status, e.connect + e.read + e.write, e.timeout))
end
`,
  );
  const origin = new URL(opts.url).origin;
  const args = [
    '-t1',
    `-c${opts.connections ?? 50}`,
    `-d${Math.max(1, Math.round(opts.duration))}s`,
    '--timeout',
    '10s',
    '-s',
    script,
    origin,
  ];
  const out = await new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text}`))));
  });
  fs.rmSync(dir, { recursive: true, force: true });
  const line = out.split('\n').find((l) => l.startsWith('WRK '));
  if (!line) throw new Error(`wrk printed no summary: ${out}`);
  const r = JSON.parse(line.slice(4));
  return {
    requests: { total: r.total },
    duration: r.us / 1e6,
    latency: { p50: r.p50 / 1000, p99: r.p99 / 1000 },
    statusCodeStats: { '2xx/3xx': { count: r.total - r.other }, other: { count: r.other } },
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

/**
 * A V8 profile of `pid` (started with bench/cpu-profile-preload.js, which writes it to `out`) over 8 s
 * of `opts`'s load, after `warmupS` seconds of it: the profile, and the requests and req/s of its window.
 */
async function profileUnderLoad(pid, opts, out, warmupS) {
  await cannon({ ...opts, duration: warmupS });
  process.kill(pid, 'SIGWINCH');
  const r = await cannon({ ...opts, duration: 8 });
  process.kill(pid, 'SIGWINCH');
  for (let i = 0; i < 100 && !fs.existsSync(out); i++) await sleep(100);
  await sleep(500);
  return { profile: JSON.parse(fs.readFileSync(out, 'utf8')), requests: r.requests.total, rps: r.requests.total / r.duration };
}

function cannon(opts) {
  if (loadGenerator === 'wrk' && opts.duration !== undefined && opts.amount === undefined) return wrkRun(opts);
  return new Promise((resolve, reject) => {
    const instance = autocannon({ connections: 50, timeout: 10, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
    instance.on('error', () => {}); // counted in result.errors
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Warm-up, then `runs` measured runs. `makeOpts(phase)` returns autocannon options (url, requests,
 * duration or amount) for 'warmup' or run i. Medians of req/s, p50, p99 and CPU µs per request.
 */
async function measure(pid, makeOpts, { warmup, duration, runs, quietWaitS = 15 }) {
  const quiet = await waitQuiet(pid, quietWaitS);
  if (warmup > 0) await cannon({ ...makeOpts('warmup'), duration: warmup });
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const opts = { duration, ...makeOpts(i) };
    const t0 = cpuTicks(pid);
    const { mark } = otherLoad(pid);
    const r = await cannon(opts);
    const cpuUs = ((cpuTicks(pid) - t0) * 1e6) / CLK_TCK;
    const other = otherLoad(pid, mark).cores;
    const total = r.requests.total;
    samples.push({
      rps: total / r.duration,
      p50: r.latency.p50,
      p99: r.latency.p99,
      cpuUsPerReq: total ? cpuUs / total : NaN,
      cpuShare: cpuUs / 1e6 / r.duration,
      total,
      codes: Object.fromEntries(Object.entries(r.statusCodeStats || {}).map(([c, v]) => [c, v.count])),
      errors: r.errors + r.timeouts,
      other,
    });
  }
  const codes = {};
  for (const s of samples) for (const [c, n] of Object.entries(s.codes)) codes[c] = (codes[c] || 0) + n;
  return {
    rps: median(samples.map((s) => s.rps)),
    p50: median(samples.map((s) => s.p50)),
    p99: median(samples.map((s) => s.p99)),
    p99Runs: samples.map((s) => s.p99),
    cpuUsPerReq: median(samples.map((s) => s.cpuUsPerReq)),
    cpuShare: median(samples.map((s) => s.cpuShare)),
    rpsRuns: samples.map((s) => Math.round(s.rps)),
    total: samples.reduce((a, s) => a + s.total, 0),
    errors: samples.reduce((a, s) => a + s.errors, 0),
    codes,
    rss: rssMiB(pid),
    other: median(samples.map((s) => s.other)),
    quietWaitS: quiet.waitedS,
  };
}

/**
 * Measures `sides` ({ pid, opts }) in turns, `rounds` times: one runs while the others are stopped
 * (SIGSTOP), and every other round goes in reverse order, so the machine's drift hits every side
 * alike. Returns, per side (in the order given), one measure() result per round.
 */
async function inTurns(sides, { rounds, duration, warmup = 1, quietWaitS = 5 }) {
  const out = sides.map(() => []);
  for (const s of sides) process.kill(s.pid, 'SIGSTOP');
  try {
    for (let round = 0; round < rounds; round++) {
      const order = sides.map((_, i) => i);
      for (const i of round % 2 ? order.reverse() : order) {
        process.kill(sides[i].pid, 'SIGCONT');
        try {
          out[i].push(await measure(sides[i].pid, sides[i].opts, { warmup, duration, runs: 1, quietWaitS }));
        } finally {
          process.kill(sides[i].pid, 'SIGSTOP');
        }
      }
    }
  } finally {
    for (const s of sides) process.kill(s.pid, 'SIGCONT');
  }
  return out;
}

// ---------------------------------------------------------------- headless Chromium

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// test/utils/browser.ts launches it so.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Debian's Chromium (the browser tests' too) through playwright-core: this machine cannot download one. */
function launchChromium() {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: apt-get install chromium (or set CHROMIUM_PATH)`);
  return require('playwright-core').chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/** The bootstrap OWNER signed in: the login answer (its `token`) and the browser session cookie the sign-in set (`cookie`). */
async function signInOwner(port) {
  const res = await request('POST', port, '/api/v1/auth/login', { body: OWNER });
  if (res.status !== 200) throw new Error(`owner login: expected 200, got ${res.status} ${res.text.slice(0, 300)}`);
  const cookie = /^gatehouse_session=([^;]+)/.exec(String(res.headers['set-cookie']))?.[1];
  if (cookie === undefined) throw new Error('owner login: no session cookie');
  return { ...res.json, cookie };
}

/**
 * A browser context signed in to the dashboard with `signInOwner`'s answer, as a browser that signed
 * in keeps it: the session cookie, and the note that tells a new tab to exchange it for a token.
 * Contexts given the same answer share one session.
 */
async function dashboardContext(browser, login, options = {}) {
  const context = await browser.newContext(options);
  await context.addCookies([
    { name: 'gatehouse_session', value: login.cookie, domain: HOST, path: '/api/v1/auth/login', httpOnly: true, sameSite: 'Strict' },
  ]);
  await context.addInitScript(() => localStorage.setItem('gatehouse.signedIn', '1'));
  return context;
}

module.exports = {
  setRequestTimeout,
  ROOT,
  launchChromium,
  signInOwner,
  dashboardContext,
  appDir: () => appDir,
  setAppDir,
  setLogDir,
  setWrapper,
  HOST,
  OWNER,
  HAS_TASKSET,
  CLK_TCK,
  sleep,
  log,
  pinSelfToLoadCore,
  startApp,
  appNodeFlags,
  appNodeEnv,
  appNodeCommand,
  appEnv,
  randomKeys,
  createDatabase,
  dropDatabase,
  startBare,
  startStackReference,
  flood,
  startNode,
  stop,
  killAllNow,
  request,
  expect,
  pool,
  setupAccount,
  cannon,
  setLoadGenerator,
  profileUnderLoad,
  measure,
  inTurns,
  median,
  rssMiB,
  peakRssMiB,
  waitQuiet,
  otherLoad,
  cpuTicks,
};
