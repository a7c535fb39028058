'use strict';
// docs/BENCHMARKS.md from the run's results: the targets table, each scenario's section, versions.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const L = require('./lib');
const { markdown } = require('./profile');
const {
  TIMING,
  SOAK_MINUTES,
  KEYS,
  USERS,
  PG_ADMIN_URL,
  REDIS_URL,
  started,
  tmpRoot,
  results,
  commands,
  built,
  MODES,
  fmt,
  range,
  shares,
} = require('./context');
const { REDIS_REFERENCE, CONTRACT_REFERENCE, turns, turnsSection } = require('./scenarios/api-key');
const { widgetSection, widgetTargetRows } = require('./scenarios/widget');
const { LOGIN_FLOOD_IPS } = require('./scenarios/login');
const { AB_PAIRS } = require('./scenarios/recording');
const { soakSection } = require('./scenarios/soak');
const { FOOTPRINT, footprintRows } = require('./scenarios/footprint');
const { KEPT_PROFILE, groupTable } = require('./scenarios/cpu-profile');

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
    `- gatehouse commit ${built.from}`,
  ].join('\n');
}

function targets(bare, soak) {
  const find = (mode, prefix) => results.find((r) => r.mode === mode && r.scenario.startsWith(prefix));
  const ratio = (r) => (r ? r.rps / bare : NaN);
  const verdict = (ok) => (ok === undefined ? '–' : ok ? 'met' : '**not met**');
  const rows = [];
  const allowed = { embedded: find('embedded', 'API-key ping, allowed'), pg: find('pg', 'API-key ping, allowed') };
  // The reference server each ratio is best read against, measured in this run (see the rows below the table).
  const referenceNote = (label, prefix) => {
    const r = find('reference', prefix);
    return r ? ` (${label}: ${fmt(ratio(r), 2)} ×)` : '';
  };
  const redisReference = referenceNote(REDIS_REFERENCE, 'NestJS + Fastify + minimal key guard, counter in Redis');
  const contractReference = referenceNote(
    CONTRACT_REFERENCE,
    "NestJS + Fastify + passport strategy and ThrottlerGuard run as Gatehouse runs them, with the contract's",
  );
  // The verdict is the median of the rounds in turns; the single scenario's ratio is shown beside it.
  const inTurns = (mode) => {
    const t = turns[mode];
    if (!t) return undefined;
    const app = t.rounds.map((r) => r.app.rps / r.bare.rps);
    const reference = t.rounds.map((r) => r.reference.rps / r.bare.rps);
    const ofReference = t.rounds.map((r) => r.app.rps / r.reference.rps);
    const p99 = L.median(t.rounds.map((r) => r.app.p99));
    // Three decimals where two would round across a target's line (0.547 is not 0.55).
    return {
      ratio: L.median(app),
      p99,
      text:
        `**${fmt(L.median(app), 3)} ×** [${range(app)}], p99 ${fmt(p99)} ms: median of ${app.length} rounds in turns ` +
        `(${t.referenceLabel}: ${fmt(L.median(reference), 3)} × [${range(reference)}]; the app ÷ that reference per round: median ${fmt(L.median(ofReference), 2)} [${range(ofReference)}])`,
    };
  };
  const single = (r, reference) => `; the scenario alone: ${fmt(ratio(r), 2)} ×, p99 ${fmt(r.p99)} ms${reference}`;
  const pgTurns = inTurns('pg');
  const embeddedTurns = inTurns('embedded');
  if (allowed.pg && pgTurns)
    rows.push([
      'API-key request, PostgreSQL + Redis: >= 0.40 × bare, p99 <= 10 ms',
      pgTurns.text + single(allowed.pg, redisReference),
      verdict(pgTurns.ratio >= 0.4 && pgTurns.p99 <= 10),
    ]);
  if (allowed.embedded && embeddedTurns)
    rows.push([
      'API-key request, embedded: >= 0.55 × bare',
      embeddedTurns.text + single(allowed.embedded, contractReference),
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
  rows.push(...widgetTargetRows());
  rows.push(...footprintRows());
  if (soak)
    rows.push([
      `Soak (${SOAK_MINUTES} min, embedded): RSS growth < 10%`,
      `${fmt(soak.early)} → ${fmt(soak.late)} MiB (${fmt(soak.growth * 100, 1)}%; medians of the first and last thirds)`,
      verdict(soak.growth < 0.1),
    ]);
  const references = results.filter((r) => r.scenario.includes('(stack reference)'));
  return `| target | measured | |
|---|---|---|
${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}
${references.map((r) => `| _context: ${r.scenario.replace(' (stack reference)', '')}_ | ${fmt(ratio(r), 2)} ×, p99 ${fmt(r.p99)} ms | reference |`).join('\n')}`;
}

function report({ profile, argon2, soak, elapsedS }) {
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

The stack reference rows (bench/reference-server.js) are NestJS + Fastify with this project's versions in the same run: a bare
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
each phase sends a fixed quarter of 90% of that instead of running for its seconds. The widget's scenarios are described in their section above.
Login allows 30/min per client IP, so the login flood is almost all 429 — the figure shows what a
flood costs, not how fast logins are. "API-key ping during a login flood" runs the allowed-path load
while ${LOGIN_FLOOD_IPS.length} client IPs (127.0.1.x) send right-password logins as fast as they are answered, 2 at a time
each: every IP's first 30 per minute run argon2id (at most half the cores hash at once, src/credentials/passwords.ts),
the rest answer 429. The flood starts with the first measured run, so that run holds a fresh window's
burst of argon2 work; its p99 is the worst run's.

**Memory footprint** (the RSS rows of the targets table): for each mode a fresh app, started as \`npm run start:prod\`
starts it, is read ${FOOTPRINT.settleS} s after start (idle), then ${KEYS} keys are created, the owner logs in ${FOOTPRINT.logins} times (${FOOTPRINT.loginWidth} at
a time, as a team opening the dashboard together) and the API-key ping runs for ${FOOTPRINT.loadS} s at full load (50 connections)
before the second reading. \`npm run bench:memory\` measures only this, in a few minutes.
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

argon2id verify (${argon2?.parameters}, src/credentials/passwords.ts): **${fmt(argon2?.ms, 1)} ms** per verify
(median of 10, measured in the load-generator process on core 1). A login at its limit (30/min per IP)
costs the server about ${fmt((argon2?.ms * 30) / 60, 1)} ms of CPU per second per client IP.

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

### Gatehouse against the stack's own reference server

The same load on \`bench/reference-server.js stack-lean\` (passport-headerapikey through @nestjs/passport's
\`PassportStrategy\`, run on a per-request object as Gatehouse runs it, then @nestjs/throttler's guard with an
O(1) in-memory storage answering after I/O polling, three headers, nothing else), profiled the same way
(${fmt(profile.referenceRps)} req/s under profiling). Self time per request in µs, grouped by whose code it is;
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

module.exports = { report };
