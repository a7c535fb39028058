import { EXPOSED_HEADERS } from '../../src/cors/cors';
import { UsageRecorder } from '../../src/usage/usage.recorder';
import { createAccount, expectError, expectRateLimitHeaders, startApp, TestAccount, TestApp } from '../utils/test-app';

const SHOP = 'https://shop.example.com';
const ELSEWHERE = 'https://evil.example.net';
const DASHBOARD = 'https://dash.example.com';

describe('CORS (docs/API.md, "Browser clients (CORS)")', () => {
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startApp({ DASHBOARD_ORIGINS: DASHBOARD });
    account = await createAccount(t);
  });
  afterAll(() => t.close());

  const preflight = (path: string, origin: string, method: string, headers = 'x-api-key') =>
    t.http.options(path).set('Origin', origin).set('Access-Control-Request-Method', method).set('Access-Control-Request-Headers', headers);

  describe('widget (API-key) routes', () => {
    it('answer a preflight from any origin with 204, without a credential', async () => {
      const res = await preflight('/api/v1/widget/nonces', ELSEWHERE, 'POST', 'x-api-key,content-type').expect(204);
      expect(res.headers['access-control-allow-origin']).toBe(ELSEWHERE);
      expect(res.headers['access-control-allow-methods']).toBe('POST');
      expect(res.headers['access-control-allow-headers']).toBe('X-Api-Key, Content-Type, X-Request-Id');
      expect(res.headers['access-control-max-age']).toBe('600');
      expect(res.headers['vary']).toBe('Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
      expect(res.headers['x-request-id']).toEqual(expect.any(String));
      expect(res.text).toBe('');
    });

    it('do not count preflights against the key, nor show them in usage analytics', async () => {
      const own = await createAccount(t);
      const { id, key } = await own.createKey();
      const first = await t.http.get('/api/v1/widget/config').set('X-Api-Key', key).set('Origin', SHOP).expect(200);
      for (let i = 0; i < 5; i++) {
        // Even one that (unlike a browser) sends the key: preflights never reach authentication.
        const res = await preflight('/api/v1/widget/config', SHOP, 'GET').set('X-Api-Key', key).expect(204);
        expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
      }
      const second = await t.http.get('/api/v1/widget/config').set('X-Api-Key', key).set('Origin', SHOP).expect(200);
      expect(Number(second.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);

      await t.app.get(UsageRecorder).flush();
      const usage = await t.http
        .get('/api/v1/analytics/usage')
        .query({ groupBy: 'endpoint', apiKeyId: id })
        .set('Authorization', `Bearer ${own.owner.token}`)
        .expect(200);
      expect(usage.body.data.map((r: { key: string; count: number }) => [r.key, r.count])).toEqual([['GET /api/v1/widget/config', 2]]);
    });

    it('let any origin use a key without allowedOrigins, and expose the rate-limit headers', async () => {
      const { key } = await account.createKey();
      const res = await t.http.get('/api/v1/widget/config').set('X-Api-Key', key).set('Origin', ELSEWHERE).expect(200);
      expect(res.headers['access-control-allow-origin']).toBe(ELSEWHERE);
      expect(res.headers['access-control-expose-headers']).toBe(EXPOSED_HEADERS);
      for (const h of [
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'RateLimit',
        'RateLimit-Policy',
        'Retry-After',
        'X-Request-Id',
      ]) {
        expect(EXPOSED_HEADERS.split(', ')).toContain(h);
      }
      expect(res.headers['vary']).toBe('Origin');
      expectRateLimitHeaders(res);
    });

    it('let a listed origin use a key with allowedOrigins (compared as origins: case, default port)', async () => {
      const { key } = await account.createKey({ allowedOrigins: ['https://SHOP.example.com:443', 'http://localhost:8080'] });
      const res = await t.http.get('/api/v1/widget/challenge').set('X-Api-Key', key).set('Origin', SHOP).expect(200);
      expect(res.headers['access-control-allow-origin']).toBe(SHOP);
      await t.http.get('/api/v1/widget/config').set('X-Api-Key', key).set('Origin', 'http://localhost:8080').expect(200);
    });

    it('answer 403 insufficient_permissions, readable by the page, to an origin not on the key’s list', async () => {
      const { key } = await account.createKey({ allowedOrigins: [SHOP] });
      for (const origin of [ELSEWHERE, 'http://shop.example.com', 'null']) {
        const res = await t.http.get('/api/v1/widget/config').set('X-Api-Key', key).set('Origin', origin);
        expectError(res, 403, 'insufficient_permissions');
        expectRateLimitHeaders(res);
        expect(res.headers['access-control-allow-origin']).toBe(origin);
        expect(res.headers['access-control-expose-headers']).toBe(EXPOSED_HEADERS);
      }
      const challenge = await t.http.get('/api/v1/widget/challenge').set('X-Api-Key', key).set('Origin', ELSEWHERE);
      expectError(challenge, 403, 'insufficient_permissions');
      const nonce = await t.http.post('/api/v1/widget/nonces').set('X-Api-Key', key).set('Origin', ELSEWHERE).send({ altcha: 'x' });
      expectError(nonce, 403, 'insufficient_permissions');
    });

    it('refuse an origin before it counts against the key: a page elsewhere spends nothing of its allowance', async () => {
      const { key } = await account.createKey({ allowedOrigins: [SHOP] });
      const before = await t.http.get('/api/v1/widget/challenge').set('X-Api-Key', key).set('Origin', SHOP).expect(200);
      for (let i = 0; i < 5; i++) {
        const refused = await t.http.get('/api/v1/widget/challenge').set('X-Api-Key', key).set('Origin', ELSEWHERE);
        expectError(refused, 403, 'insufficient_permissions');
        expectRateLimitHeaders(refused); // the client IP's anonymous allowance, as for a bad key
      }
      const after = await t.http.get('/api/v1/widget/challenge').set('X-Api-Key', key).set('Origin', SHOP).expect(200);
      expect(Number(after.headers['x-ratelimit-remaining'])).toBe(Number(before.headers['x-ratelimit-remaining']) - 1);
    });

    it('check nothing without an Origin header (server-to-server calls)', async () => {
      const { key } = await account.createKey({ allowedOrigins: [SHOP] });
      const res = await t.http.get('/api/v1/widget/config').set('X-Api-Key', key).expect(200);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['vary']).toBe('Origin');
    });

    it('still answer 401 before the origin is looked at', async () => {
      const res = await t.http.get('/api/v1/widget/config').set('Origin', ELSEWHERE);
      expectError(res, 401, 'missing_credentials');
      expect(res.headers['access-control-allow-origin']).toBe(ELSEWHERE);
    });
  });

  describe('JWT routes', () => {
    it('answer a preflight from DASHBOARD_ORIGINS with the methods of the path', async () => {
      const res = await preflight(
        '/api/v1/api-keys/0b7e7a4e-8f5e-4b53-9a53-3d0e2f1c8a11',
        DASHBOARD,
        'PATCH',
        'authorization,content-type',
      ).expect(204);
      expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
      expect(res.headers['access-control-allow-methods']?.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
      expect(res.headers['access-control-allow-headers']).toBe('Authorization, Content-Type, X-Request-Id');
    });

    it('grant nothing to another origin, in the preflight or the response', async () => {
      const pre = await preflight('/api/v1/account', ELSEWHERE, 'GET', 'authorization').expect(204);
      expect(pre.headers['access-control-allow-origin']).toBeUndefined();
      expect(pre.headers['access-control-allow-methods']).toBeUndefined();
      const res = await t.http
        .get('/api/v1/account')
        .set('Authorization', `Bearer ${account.owner.token}`)
        .set('Origin', ELSEWHERE)
        .expect(200);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['access-control-expose-headers']).toBeUndefined();
      expect(res.headers['vary']).toBe('Origin');
    });

    it('grant the dashboard origin and expose the headers on the response', async () => {
      const res = await t.http
        .get('/api/v1/account')
        .set('Authorization', `Bearer ${account.owner.token}`)
        .set('Origin', DASHBOARD)
        .expect(200);
      expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
      expect(res.headers['access-control-expose-headers']).toBe(EXPOSED_HEADERS);
      expectRateLimitHeaders(res);
    });

    it('treat the public login route as a dashboard route', async () => {
      const ok = await preflight('/api/v1/auth/login', DASHBOARD, 'POST', 'content-type').expect(204);
      expect(ok.headers['access-control-allow-origin']).toBe(DASHBOARD);
      expect(ok.headers['access-control-allow-headers']).toBe('Content-Type, X-Request-Id');
      const refused = await preflight('/api/v1/auth/login', ELSEWHERE, 'POST', 'content-type').expect(204);
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('refuse every browser origin when DASHBOARD_ORIGINS is unset', async () => {
      const bare = await startApp();
      try {
        const res = await bare.http
          .options('/api/v1/account')
          .set('Origin', DASHBOARD)
          .set('Access-Control-Request-Method', 'GET')
          .expect(204);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
        const widget = await bare.http
          .options('/api/v1/widget/config')
          .set('Origin', DASHBOARD)
          .set('Access-Control-Request-Method', 'GET')
          .expect(204);
        expect(widget.headers['access-control-allow-origin']).toBe(DASHBOARD);
      } finally {
        await bare.close();
      }
    });
  });

  describe('outside the routes', () => {
    it('answer a preflight to an unknown path or method with 404 not_found', async () => {
      expectError(await preflight('/api/v1/nothing-here', SHOP, 'GET'), 404, 'not_found');
      expectError(await preflight('/api/v1/widget/config', SHOP, 'DELETE'), 404, 'not_found');
    });

    it('answer an OPTIONS that is no preflight with 404 not_found, as before', async () => {
      const res = await t.http.options('/api/v1/widget/config');
      expectError(res, 404, 'not_found');
      expectRateLimitHeaders(res);
    });

    it('leave /health and /docs without CORS', async () => {
      const res = await t.http.get('/health').set('Origin', SHOP);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      const pre = await t.http.options('/health').set('Origin', SHOP).set('Access-Control-Request-Method', 'GET');
      expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});
