'use strict';
// `npm run bench:webhooks` — what webhook delivery does, end to end: the built app (as `npm run
// start:prod` runs it) delivers to a local HTTP receiver (WEBHOOK_ALLOW_PRIVATE=true), on the embedded
// database and, when PostgreSQL answers on 127.0.0.1:5432, on PostgreSQL.
//
// - latency: 200 `webhook.test` events, one every 50 ms; per event, the time from the event (its
//   `timestamp`, taken in the transaction that enqueues it) to the receiver having its body. p50, p99.
// - throughput: 20 endpoints subscribed to `api_key.created`, then 50 keys created at once: 1,000
//   deliveries; deliveries per second from the first to the last received.
//
// Options: --no-build (use the dist/ already built).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const L = require('./lib');

const ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/test';

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

function startReceiver() {
  const got = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString());
      got.push({ at, type: body.type, timestamp: Date.parse(body.timestamp), id: req.headers['webhook-id'] });
      res.end('ok');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, got, port: server.address().port })));
}

async function waitFor(cond, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await L.sleep(20);
  }
}

async function measure(label, extraEnv) {
  const receiver = await startReceiver();
  const app = await L.startApp(L.appEnv({ WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn', ...extraEnv }));
  try {
    const call = (method, url, body, token) =>
      L.request(method, app.port, url, { body, headers: token ? { authorization: `Bearer ${token}` } : {} });
    const { token } = await L.expect(call('POST', '/api/v1/auth/login', L.OWNER), 200, 'login');
    await L.expect(call('PUT', '/api/v1/account/plan', { plan: 'enterprise' }, token), 200, 'plan');
    const url = `http://127.0.0.1:${receiver.port}/hook`;

    // Latency: one event at a time.
    const test = await L.expect(call('POST', '/api/v1/webhooks', { url, events: ['webhook.test'] }, token), 201, 'endpoint');
    for (let i = 0; i < 200; i++) {
      await L.expect(call('POST', `/api/v1/webhooks/${test.id}/test`, undefined, token), 202, 'test event');
      await L.sleep(50);
    }
    await waitFor(() => receiver.got.length >= 200, 60_000, '200 test deliveries');
    const latencies = receiver.got.map((g) => g.at - g.timestamp);
    await L.expect(call('DELETE', `/api/v1/webhooks/${test.id}`, undefined, token), 204, 'delete');

    // Throughput: 1,000 deliveries at once.
    receiver.got.length = 0;
    for (let i = 0; i < 20; i++)
      await L.expect(call('POST', '/api/v1/webhooks', { url, events: ['api_key.created'] }, token), 201, 'endpoint');
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => L.expect(call('POST', '/api/v1/api-keys', { name: `bench ${i}` }, token), 201, 'key')),
    );
    await waitFor(() => receiver.got.length >= 1000, 300_000, '1,000 deliveries');
    const first = Math.min(...receiver.got.map((g) => g.at));
    const last = Math.max(...receiver.got.map((g) => g.at));
    const distinct = new Set(receiver.got.map((g) => g.id)).size;
    return {
      label,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      perSecond: Math.round(1000 / ((last - first) / 1000)),
      allIn: ((last - started) / 1000).toFixed(1),
      distinct,
    };
  } finally {
    await L.stop(app.child);
    receiver.server.close();
  }
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-bench-webhooks-'));
  L.setLogDir(tmp);
  if (!process.argv.includes('--no-build'))
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: L.ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const rows = [await measure('embedded', { DATA_DIR: path.join(tmp, 'data') })];
  const dbName = `gatehouse_bench_webhooks_${process.pid}`;
  let databaseUrl;
  try {
    databaseUrl = await L.createDatabase(ADMIN_URL, dbName);
  } catch {
    L.log('PostgreSQL does not answer on 127.0.0.1:5432: embedded only');
  }
  if (databaseUrl !== undefined) {
    try {
      execFileSync('npx', ['prisma', 'migrate', 'deploy'], {
        cwd: L.ROOT,
        env: { ...process.env, DATABASE_URL: databaseUrl },
        stdio: 'ignore',
      });
      rows.push(await measure('PostgreSQL', { DATABASE_URL: databaseUrl }));
    } finally {
      await L.dropDatabase(ADMIN_URL, dbName);
    }
  }
  console.log('\n| Database | event → delivered p50 | p99 | deliveries/s (one instance) | 1,000 delivered after | distinct webhook-ids |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.label} | ${r.p50} ms | ${r.p99} ms | ${r.perSecond} | ${r.allIn} s | ${r.distinct} |`);
  fs.rmSync(tmp, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    L.killAllNow();
    process.exit(1);
  },
);
