import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildDashboard } from '../utils/dashboard';
import { expectError, expectRateLimitHeaders, startApp, TestApp } from '../utils/test-app';

const VERSION = (JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')) as { version: string }).version;

describe('GET /api/v1/config', () => {
  it('tells anyone what the deployment offers before sign-in, cacheable', async () => {
    const t = await startApp();
    try {
      const res = await t.http.get('/api/v1/config').expect(200);
      expect(res.body).toEqual({ signupOpen: false, emailEnabled: false, version: VERSION });
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      expectRateLimitHeaders(res);
    } finally {
      await t.close();
    }
  });

  it('says so when sign-up is open and e-mail is configured', async () => {
    const t = await startApp({ SIGNUP: 'open', SMTP_URL: 'smtp://127.0.0.1:2525' });
    try {
      expect((await t.http.get('/api/v1/config').expect(200)).body).toEqual({ signupOpen: true, emailEnabled: true, version: VERSION });
    } finally {
      await t.close();
    }
  });
});

describe('an unknown path', () => {
  let t: TestApp;
  beforeAll(async () => {
    buildDashboard();
    t = await startApp();
  }, 120_000);
  afterAll(() => t.close());

  it('answers a browser (Accept: text/html) with the dashboard’s page, status 404, under its CSP', async () => {
    for (const path of ['/nope', '/KEYS', '/keys/extra']) {
      const res = await t.http.get(path).set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8');
      expect({ path, status: res.status, type: res.headers['content-type'] }).toEqual({
        path,
        status: 404,
        type: 'text/html; charset=utf-8',
      });
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['x-request-id']).toBeDefined();
      expect(res.text).toContain('<div id="root">');
    }
  });

  it('answers an API client, and any /api/ path, with the JSON 404', async () => {
    expectError(await t.http.get('/nope').set('Accept', 'application/json'), 404, 'not_found');
    expectError(await t.http.get('/nope'), 404, 'not_found');
    expectError(await t.http.get('/api/v1/nope').set('Accept', 'text/html'), 404, 'not_found');
    expectError(await t.http.post('/nope').set('Accept', 'text/html'), 404, 'not_found');
  });
});
