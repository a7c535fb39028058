import { request as httpRequest } from 'node:http';
import { createAccount, createPlan, expectError, startApp, type TestAccount, type TestApp } from '../utils/test-app';
import { freePort, PrivateRedis } from '../utils/private-redis';
import { WebhookReceiver } from '../utils/webhook-receiver';
import { issueNonce, solvedAltcha } from '../utils/widget';

/** One sample line of the Prometheus text format: name, labels, value. */
interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** Parses the text exposition format (version 0.0.4), failing on any line it does not understand. */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) throw new Error(`not Prometheus text: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

const sum = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);

function getOn(port: number, path: string): Promise<{ status: number; type?: string; body: string }> {
  return new Promise((resolve, reject) => {
    httpRequest({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body: Buffer.concat(chunks).toString() }));
    })
      .on('error', reject)
      .end();
  });
}

describe('Metrics', () => {
  it('are off by default: no /metrics route', async () => {
    const t = await startApp();
    try {
      await t.http.get('/metrics').set('Authorization', 'Bearer anything-at-all-123').expect(404);
    } finally {
      await t.close();
    }
  });

  describe('with METRICS_TOKEN', () => {
    const TOKEN = 'metrics-token-for-the-test-0123456789';
    let t: TestApp;
    let receiver: WebhookReceiver;
    let account: TestAccount;
    let keys: string[];

    beforeAll(async () => {
      receiver = await WebhookReceiver.start();
      t = await startApp({ METRICS_TOKEN: TOKEN, WEBHOOK_ALLOW_PRIVATE: 'true' });
      account = await createAccount(t, await createPlan(t, 3, 1000));
    });
    afterAll(async () => {
      await t.close();
      await receiver.close();
    });

    const scrape = async (): Promise<Sample[]> => {
      const res = await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
      expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
      return parse(res.text);
    };

    it('refuses a scrape without the token or with a wrong one (401), counting nothing as an API request', async () => {
      const missing = await t.http.get('/metrics');
      expectError(missing, 401, 'missing_credentials');
      expect(missing.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      for (const auth of ['Bearer wrong', `Bearer ${TOKEN}x`, TOKEN, `Basic ${TOKEN}`]) {
        const res = await t.http.get('/metrics').set('Authorization', auth);
        expectError(res, 401, 'invalid_token');
        expect({ auth, text: res.text.includes(TOKEN) }).toEqual({ auth, text: false });
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
    });

    it('counts real requests, rate-limit decisions, widget challenges, nonces, webhook deliveries, cache look-ups and the process', async () => {
      const hooks = await t.http
        .post('/api/v1/webhooks')
        .set('Authorization', `Bearer ${account.owner.token}`)
        .send({ url: receiver.url('/metrics-hook') })
        .expect(201);
      expect(hooks.body.id).toEqual(expect.any(String));
      const publicKey = await account.createKey({ name: 'public', scopes: ['public'] });
      const widgetKey = await account.createKey({ name: 'widget', scopes: ['widget'] });
      const verifyKey = await account.createKey({ name: 'verify', scopes: ['verify'] });
      keys = [publicKey.key, widgetKey.key, verifyKey.key];
      await receiver.waitFor('/metrics-hook'); // api_key.created

      // The plan allows 3 a minute per key and endpoint: 3 allowed, then 2 refused.
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await t.http.get('/api/v1/public/ping').set('X-Api-Key', publicKey.key)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);

      const { nonce } = await issueNonce(t, widgetKey.key); // a challenge issued and solved
      const wrong = JSON.parse(Buffer.from(await solvedAltcha(t, widgetKey.key), 'base64').toString()) as {
        solution: { counter: number; derivedKey: string };
      };
      const failed = Buffer.from(
        JSON.stringify({ ...wrong, solution: { ...wrong.solution, counter: wrong.solution.counter + 1 } }),
      ).toString('base64');
      expect((await t.http.post('/api/v1/widget/nonces').set('X-Api-Key', widgetKey.key).send({ altcha: failed })).status).toBe(422);
      const verify = () => t.http.post('/api/v1/nonces/verify').set('X-Api-Key', verifyKey.key).send({ nonce });
      expect((await verify().expect(200)).body.valid).toBe(true);
      expect((await verify().expect(200)).body.valid).toBe(false);
      await t.http.get('/no/such/page').expect(404);

      const samples = await scrape();
      const ping = { method: 'GET', route: '/api/v1/public/ping' };
      expect(sum(samples, 'gatehouse_http_requests_total', { ...ping, status_class: '2xx' })).toBe(3);
      expect(sum(samples, 'gatehouse_http_requests_total', { ...ping, status_class: '4xx' })).toBe(2);
      expect(sum(samples, 'gatehouse_http_request_duration_seconds_count', { ...ping, status_class: '2xx' })).toBe(3);
      expect(sum(samples, 'gatehouse_http_request_duration_seconds_bucket', { ...ping, status_class: '2xx', le: '+Inf' })).toBe(3);
      expect(sum(samples, 'gatehouse_http_request_duration_seconds_sum', { ...ping, status_class: '2xx' })).toBeGreaterThan(0);
      expect(sum(samples, 'gatehouse_http_requests_total', { method: 'POST', route: '/api/v1/nonces/verify', status_class: '2xx' })).toBe(
        2,
      );
      expect(sum(samples, 'gatehouse_http_requests_total', { method: 'GET', route: 'unmatched', status_class: '4xx' })).toBe(1);
      expect(sum(samples, 'gatehouse_http_requests_total', { route: '/metrics' })).toBe(0);

      expect(sum(samples, 'gatehouse_rate_limit_decisions_total', { tracker: 'apiKey', decision: 'refused' })).toBe(2);
      expect(sum(samples, 'gatehouse_rate_limit_decisions_total', { tracker: 'apiKey', decision: 'allowed' })).toBeGreaterThanOrEqual(
        3 + 4 + 2,
      );
      expect(sum(samples, 'gatehouse_rate_limit_decisions_total', { tracker: 'user', decision: 'allowed' })).toBeGreaterThanOrEqual(4);
      expect(sum(samples, 'gatehouse_widget_challenges_total', { result: 'issued' })).toBe(2);
      expect(sum(samples, 'gatehouse_widget_challenges_total', { result: 'solved' })).toBe(1);
      expect(sum(samples, 'gatehouse_widget_challenges_total', { result: 'failed' })).toBe(1);
      expect(sum(samples, 'gatehouse_widget_derivations_total')).toBe(2); // one a challenge issued, none to check a solution
      expect(sum(samples, 'gatehouse_nonces_verified_total', { result: 'valid' })).toBe(1);
      expect(sum(samples, 'gatehouse_nonces_verified_total', { result: 'invalid' })).toBe(1);
      expect(sum(samples, 'gatehouse_webhook_deliveries_total', { outcome: 'delivered' })).toBeGreaterThanOrEqual(1);
      expect(sum(samples, 'gatehouse_cache_lookups_total', { cache: 'apiKeyHash', result: 'hit' })).toBeGreaterThan(0);
      expect(sum(samples, 'gatehouse_cache_lookups_total', { cache: 'apiKeyHash', result: 'miss' })).toBeGreaterThan(0);
      expect(sum(samples, 'gatehouse_db_query_duration_seconds_count')).toBeGreaterThan(0);
      for (const name of [
        'process_resident_memory_bytes',
        'nodejs_heap_size_used_bytes',
        'nodejs_eventloop_lag_p99_seconds',
        'nodejs_gc_duration_seconds_count',
      ]) {
        expect({ name, present: samples.some((s) => s.name === name) }).toEqual({ name, present: true });
      }

      // No label value is a key, an id, an account name, an e-mail or an IP.
      const accountName = (await t.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).name;
      const secrets = [...keys, account.id, account.owner.id, account.owner.email, accountName, '127.0.0.1', '::ffff:127.0.0.1', '::1'];
      const values = new Set(samples.flatMap((s) => Object.values(s.labels)));
      const leaked = [...values].filter((v) => secrets.some((s) => v.includes(s)) || /@/.test(v) || /^\d+\.\d+\.\d+\.\d+$/.test(v));
      expect(leaked).toEqual([]);
    });

    it('a session exchange reads its session once: deciding whom to count and answering share one query', async () => {
      // A cookie of the right shape naming no session: refused after the look-up (401 invalid_token).
      const exchange = (i: number) =>
        t.http
          .post('/api/v1/auth/login/session')
          .set('X-Gatehouse-Session', '1')
          .set('Cookie', `gatehouse_session=ghs_${String(i).padStart(43, 'x')}`);
      const queries = async () => sum(await scrape(), 'gatehouse_db_query_duration_seconds_count');
      const before = await queries();
      const n = 20;
      for (let i = 0; i < n; i++) expectError(await exchange(i), 401, 'invalid_token');
      // One query an exchange, and room for a few of the app's own timers landing meanwhile; two each would be 40.
      const after = await queries();
      expect(after).toBeGreaterThanOrEqual(before + n);
      expect(after).toBeLessThan(before + 1.5 * n);
    });

    it('leaves /metrics out of the OpenAPI document', async () => {
      const doc = (await t.http.get('/docs-json').expect(200)).body as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths).filter((p) => p.includes('metrics'))).toEqual([]);
    });
  });

  it('times Redis calls: the rate-limit batch and the nonce claim', async () => {
    const redis = await PrivateRedis.start();
    const TOKEN = 'metrics-token-for-the-redis-test-0123';
    const t = await startApp({ METRICS_TOKEN: TOKEN, REDIS_URL: redis.url });
    try {
      const account = await createAccount(t);
      const widget = (await account.createKey({ scopes: ['widget'] })).key;
      const verifier = (await account.createKey({ scopes: ['verify'] })).key;
      const { nonce } = await issueNonce(t, widget);
      await t.http.post('/api/v1/nonces/verify').set('X-Api-Key', verifier).send({ nonce }).expect(200);
      const samples = parse((await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text);
      expect(sum(samples, 'gatehouse_redis_call_duration_seconds_count', { call: 'rate-limit-batch' })).toBeGreaterThanOrEqual(5);
      // The solution when the nonce is issued, the nonce when it is verified.
      expect(sum(samples, 'gatehouse_redis_call_duration_seconds_count', { call: 'nonce-claim' })).toBe(2);
      expect(sum(samples, 'gatehouse_redis_call_duration_seconds_sum', { call: 'nonce-claim' })).toBeGreaterThan(0);
    } finally {
      await t.close();
      await redis.kill();
    }
  });

  it('with METRICS_PORT: served on that port without auth, and not on the main port', async () => {
    const port = await freePort();
    const t = await startApp({ METRICS_PORT: String(port) });
    try {
      await t.http.get('/api/v1/config').expect(200);
      const res = await getOn(port, '/metrics');
      expect({ status: res.status, type: res.type }).toEqual({ status: 200, type: 'text/plain; version=0.0.4; charset=utf-8' });
      const samples = parse(res.body);
      expect(sum(samples, 'gatehouse_http_requests_total', { method: 'GET', route: '/api/v1/config', status_class: '2xx' })).toBe(1);
      expect(samples.some((s) => s.name === 'process_resident_memory_bytes')).toBe(true);
      expect((await getOn(port, '/api/v1/config')).status).toBe(404);
      await t.http.get('/metrics').expect(404);
    } finally {
      await t.close();
    }
    await expect(getOn(port, '/metrics')).rejects.toThrow(/ECONNREFUSED/);
  });
});
