import { listeningPort, rawExchange, rawGet } from '../utils/raw-http';
import type { Response } from 'supertest';
import { REQUEST_TIMEOUTS } from '../../src/app.setup';
import { MAX_INPUT_DEPTH } from '../../src/common/validation';
import { createAccount, expectError, expectRateLimitHeaders, onRealServices, startApp, TestAccount, TestApp } from '../utils/test-app';
import { DocumentedRoute, documentedRoutes } from './shared/routes';
import { call, Credential } from './shared/security-suite';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The documented error body and headers; on 400 also a `details` list naming `field` when given. */
function expectRefused(res: Response, status: number, code: string, field?: string): void {
  expectError(res, status, code);
  expectRateLimitHeaders(res);
  if (status === 400) expect(res.body.details).toEqual(expect.any(Array));
  if (field !== undefined) expect(res.body.details).toContainEqual(expect.objectContaining({ field, message: expect.any(String) }));
}

describe('bad input', () => {
  let t: TestApp;
  let account: TestAccount;

  const keyCount = () => t.prisma.apiKey.count({ where: { accountId: account.id } });
  const createKey = () => t.http.post('/api/v1/api-keys').set('Authorization', `Bearer ${account.owner.token}`);

  /** Runs `send`, then checks that the account's keys are as many as before. */
  async function writesNothing(send: () => Promise<Response>): Promise<Response> {
    const before = await keyCount();
    const res = await send();
    expect(await keyCount()).toBe(before);
    return res;
  }

  beforeAll(async () => {
    t = await startApp({ SIGNUP: 'open' }); // every route with a body takes part, sign-up included
    account = await createAccount(t, 'pro');
  }, 30_000);
  afterAll(() => t.close());

  describe('POST /api/v1/api-keys', () => {
    it('answers malformed JSON with 400 validation_failed', async () => {
      const res = await writesNothing(() => createKey().set('Content-Type', 'application/json').send('{"name": "x",'));
      expectRefused(res, 400, 'validation_failed', 'body');
    });

    it('refuses an unknown field, naming it', async () => {
      const res = await writesNothing(() => createKey().send({ name: 'x', admin: true }));
      expectRefused(res, 400, 'validation_failed', 'admin');
    });

    it.each([
      ['name', { name: 5 }],
      ['scopes', { name: 'x', scopes: 'widget' }],
      ['scopes', { name: 'x', scopes: ['nope'] }],
      ['expiresAt', { name: 'x', expiresAt: 'tomorrow' }],
      ['allowedOrigins', { name: 'x', allowedOrigins: ['not an origin'] }],
      ['name', { name: 'n'.repeat(101) }],
      ['name', { name: '' }],
      ['name', {}],
    ])('refuses a wrong %s (%j), naming the field', async (field, body) => {
      const res = await writesNothing(() => createKey().send(body));
      expectRefused(res, 400, 'validation_failed', field);
    });

    it('answers a body over 64 KiB with 413 payload_too_large', async () => {
      const res = await writesNothing(() =>
        createKey().send({ name: 'x', allowedOrigins: ['https://a.example.com'], pad: 'p'.repeat(70 * 1024) }),
      );
      expectRefused(res, 413, 'payload_too_large');
    });

    it('answers an XML body with 415 unsupported_media_type', async () => {
      const res = await writesNothing(() => createKey().set('Content-Type', 'application/xml').send('<key><name>x</name></key>'));
      expectRefused(res, 415, 'unsupported_media_type');
    });

    it('answers a text/plain body with 415 unsupported_media_type', async () => {
      const res = await writesNothing(() => createKey().set('Content-Type', 'text/plain').send('{"name":"x"}'));
      expectRefused(res, 415, 'unsupported_media_type');
    });

    it('answers a form-encoded body with 415 unsupported_media_type and creates nothing', async () => {
      const res = await writesNothing(() => createKey().type('form').send({ name: 'x' }));
      expectRefused(res, 415, 'unsupported_media_type');
    });
  });

  describe('PATCH /api/v1/api-keys/:id', () => {
    const patch = (id: string) => t.http.patch(`/api/v1/api-keys/${id}`).set('Authorization', `Bearer ${account.owner.token}`);
    const row = (id: string) => t.prisma.apiKey.findUniqueOrThrow({ where: { id } });

    it.each([
      ['admin', { admin: true }],
      ['scopes', { scopes: [] }],
      ['scopes', { scopes: ['widget', 'widget'] }],
      ['name', { name: 'n'.repeat(101) }],
      ['allowedOrigins', { allowedOrigins: ['https://shop.example.com/path'] }],
    ])('refuses a wrong %s (%j) and changes nothing', async (field, body) => {
      const { id } = await account.createKey();
      const before = await row(id);
      expectRefused(await patch(id).send(body), 400, 'validation_failed', field);
      expect(await row(id)).toEqual(before);
    });

    it('refuses null for name, scopes or allowedOrigins with 400 validation_failed', async () => {
      const { id } = await account.createKey();
      const before = await row(id);
      for (const field of ['name', 'scopes', 'allowedOrigins']) {
        const res = await patch(id).send({ [field]: null });
        expect({ field, status: res.status }).toEqual({ field, status: 400 });
        expectRefused(res, 400, 'validation_failed', field);
      }
      expect(await row(id)).toEqual(before);
    });
  });

  describe('GET /api/v1/api-keys/:id', () => {
    it('refuses an id that is not a UUID with 400 validation_failed', async () => {
      const res = await t.http.get('/api/v1/api-keys/not-a-uuid').set('Authorization', `Bearer ${account.owner.token}`);
      expectRefused(res, 400, 'validation_failed', 'id');
    });
  });

  describe('POST /api/v1/auth/login', () => {
    const login = () => t.http.post('/api/v1/auth/login');

    it('answers malformed JSON with 400 validation_failed', async () => {
      expectRefused(await login().set('Content-Type', 'application/json').send('{"email":'), 400, 'validation_failed', 'body');
    });

    it.each([
      ['password', { email: 'someone@example.com' }],
      ['email', { email: 'not an email', password: 'x' }],
      ['role', { email: 'someone@example.com', password: 'x', role: 'OWNER' }],
    ])('refuses a bad %s with 400 validation_failed naming it', async (field, body) => {
      expectRefused(await login().send(body), 400, 'validation_failed', field);
    });

    it('answers an unknown email and a wrong password alike: 401 invalid_credentials', async () => {
      const unknown = await login().send({ email: `nobody-${Date.now()}@example.com`, password: 'whatever it is' });
      const wrong = await login().send({ email: account.owner.email, password: 'not the password' });
      for (const res of [unknown, wrong]) {
        expectRefused(res, 401, 'invalid_credentials');
        expect(res.headers['www-authenticate']).toBe('Bearer');
      }
      const { requestId: a, ...unknownBody } = unknown.body;
      const { requestId: b, ...wrongBody } = wrong.body;
      expect(a).not.toBe(b);
      expect(unknownBody).toEqual(wrongBody);
    });
  });

  describe('input no route may take', () => {
    let routes: DocumentedRoute[];
    let apiKey: string;

    beforeAll(async () => {
      routes = (await documentedRoutes(t)).filter((r) => r.path.startsWith('/api/'));
      apiKey = (await account.createKey()).key;
    });

    /** The credential that gets `route` past authentication and authorisation. */
    function credentialFor(route: DocumentedRoute): Credential {
      if (route.auth?.method === 'apiKey') return { apiKey };
      if (route.auth?.method === 'jwt') return { bearer: account.owner.token };
      return null;
    }

    /** Sends `body` as raw JSON to every documented route that takes a body; expects 400 naming `field`. */
    async function everyBodyRouteRefuses(json: string, field: string, message: RegExp): Promise<void> {
      const withBody = routes.filter((r) => r.takesBody);
      expect(withBody.length).toBeGreaterThanOrEqual(10);
      for (const route of withBody) {
        const credential = credentialFor(route);
        let req = t.http[route.method.toLowerCase() as 'post'](route.url).set('Content-Type', 'application/json');
        if (credential !== null && 'apiKey' in credential) req = req.set('X-Api-Key', credential.apiKey);
        if (credential !== null && 'bearer' in credential) req = req.set('Authorization', `Bearer ${credential.bearer}`);
        const res = await writesNothing(() => req.send(json));
        const where = `${route.method} ${route.path}`;
        expect({ where, status: res.status }).toEqual({ where, status: 400 });
        expectRefused(res, 400, 'validation_failed');
        expect({ where, details: res.body.details }).toEqual({
          where,
          details: expect.arrayContaining([{ field, message: expect.stringMatching(message) }]),
        });
      }
    }

    it('answers JSON nested thousands deep with 400 validation_failed on every route with a body', async () => {
      const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      await everyBodyRouteRefuses(`{"name":${deep}}`, 'name', /nested/);
      await everyBodyRouteRefuses(`${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, 'a', /nested/);
    });

    it(`lets nesting up to ${MAX_INPUT_DEPTH} levels through to the DTO's own rules`, async () => {
      const res = await createKey().send({
        name: 'x',
        scopes: JSON.parse(`${'['.repeat(MAX_INPUT_DEPTH - 1)}${']'.repeat(MAX_INPUT_DEPTH - 1)}`),
      });
      expectRefused(res, 400, 'validation_failed', 'scopes');
      expect(res.body.details).not.toContainEqual(expect.objectContaining({ message: expect.stringMatching(/nested/) }));
    });

    it.each([
      ['a NUL character', '"a\\u0000b"'],
      ['a lone high surrogate', '"a\\ud800b"'],
      ['a lone low surrogate', '"\\udc00"'],
      ['a reversed surrogate pair', '"\\udc00\\ud800"'],
    ])('answers %s in a string with 400 validation_failed naming the field, on every route with a body', async (_, text) => {
      await everyBodyRouteRefuses(`{"name":${text}}`, 'name', /NUL|surrogate/);
      await everyBodyRouteRefuses(`{"list":["ok",${text}]}`, 'list.1', /NUL|surrogate/);
    });

    it('keeps a well-formed surrogate pair (an emoji) in a name', async () => {
      const res = await createKey().send({ name: 'rocket \ud83d\ude80' }).expect(201);
      expect(res.body.name).toBe('rocket 🚀');
    });

    it('changes nothing when a field holds text PostgreSQL cannot store', async () => {
      const auth = { Authorization: `Bearer ${account.owner.token}` };
      const before = await t.prisma.account.findUniqueOrThrow({ where: { id: account.id } });
      const patch = await t.http.patch('/api/v1/account').set(auth).send({ name: 'a\u0000b' });
      expectRefused(patch, 400, 'validation_failed', 'name');
      const hooks = await t.http
        .post('/api/v1/webhooks')
        .set(auth)
        .set('Content-Type', 'application/json')
        .send('{"url":"https://example.com/hook","description":"a\\ud800"}');
      expectRefused(hooks, 400, 'validation_failed', 'description');
      expect(await t.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).toEqual(before);
      expect(await t.prisma.webhookEndpoint.count({ where: { accountId: account.id } })).toBe(0);
    });

    it('refuses an unknown query parameter on every route, naming it', async () => {
      for (const route of routes) {
        const res = await call(t, { ...route, url: `${route.url}?bogus=1` }, credentialFor(route));
        const where = `${route.method} ${route.path}`;
        expect({ where, status: res.status }).toEqual({ where, status: 400 });
        expectRefused(res, 400, 'validation_failed', 'bogus');
      }
    });

    it('refuses a query parameter on a route that takes none, and a HEAD request alike', async () => {
      const auth = { Authorization: `Bearer ${account.owner.token}` };
      expectRefused(await t.http.get('/api/v1/api-keys?limit=5&x').set(auth), 400, 'validation_failed', 'limit');
      const head = await t.http.head('/api/v1/api-keys?limit=5').set(auth);
      expect(head.status).toBe(400);
      expectRateLimitHeaders(head);
      await t.http.get('/api/v1/api-keys?').set(auth).expect(200);
    });
  });

  describe('broken paths', () => {
    it.each(['/api/v1/api-keys/%E0%A4%A', '/api/v1/%zz', '/api/v1/api-keys/%ff'])(
      'answers %s with 400 validation_failed in the envelope',
      async (url) => {
        const res = await t.http.get(url).set('Authorization', `Bearer ${account.owner.token}`).set('X-Request-Id', 'broken-path-1');
        expectRefused(res, 400, 'validation_failed', 'path');
        expect(res.body.requestId).toBe('broken-path-1');
      },
    );

    it('answers a path parameter over 100 characters with 400 validation_failed in the envelope', async () => {
      const res = await t.http.get(`/api/v1/api-keys/${'a'.repeat(101)}`).set('Authorization', `Bearer ${account.owner.token}`);
      expectRefused(res, 400, 'validation_failed', 'path');
    });
  });

  describe('unknown routes', () => {
    it.each(['/api/v1/nothing-here', '/api/v1/api-keys/x/y/z', '/api/v2/public/ping', '/api/nothing'])(
      'answers %s with 404 not_found',
      async (url) => {
        expectRefused(await t.http.get(url), 404, 'not_found');
      },
    );
  });

  describe('X-Request-Id', () => {
    it('keeps a sane client-sent id, in the header and the body', async () => {
      const res = await t.http.get('/api/v1/api-keys').set('X-Request-Id', 'req-123.abc');
      expect(res.headers['x-request-id']).toBe('req-123.abc');
      expectRefused(res, 401, 'missing_credentials');
    });

    it.each([
      ['spaces', 'req 123'],
      ['more than 128 characters', 'r'.repeat(129)],
      ['a quote', 'req"123'],
    ])('replaces an id with %s by a generated one', async (_, sent) => {
      const res = await t.http.get('/api/v1/api-keys').set('X-Request-Id', sent);
      expect(res.headers['x-request-id']).toMatch(UUID);
      expectRefused(res, 401, 'missing_credentials');
    });
  });

  describe('what the HTTP layer refuses', () => {
    let port: number;

    beforeAll(async () => {
      port = await listeningPort(t);
    });

    /** The head's header lines by lower-case name, and the body. */
    function parse(raw: string): { head: string; headers: Record<string, string>; body: string } {
      const [head = '', body = ''] = raw.split('\r\n\r\n');
      const headers = Object.fromEntries(
        head
          .split('\r\n')
          .slice(1)
          .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      return { head, headers, body };
    }

    it('answers a header over 16 KiB with 431 request_header_fields_too_large and the documented body', async () => {
      const res = await rawGet(port, '/api/v1/public/ping', { 'X-Padding': 'p'.repeat(17 * 1024) });
      expect(res.status).toBe(431);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body)).toEqual({
        statusCode: 431,
        error: 'request_header_fields_too_large',
        message: expect.any(String),
        requestId: res.headers['x-request-id'],
      });
    });

    it('answers bytes that are not HTTP with 400 validation_failed and the documented body', async () => {
      const { head, headers, body } = parse(await rawExchange(port, 'NOT HTTP AT ALL\r\n\r\n'));
      expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(body)).toEqual({
        statusCode: 400,
        error: 'validation_failed',
        message: expect.any(String),
        requestId: headers['x-request-id'],
        details: [],
      });
    });

    it('answers an HTTP/1.1 request without Host with 400 validation_failed in the envelope, with a request id and rate-limit headers', async () => {
      const { head, headers, body } = parse(await rawExchange(port, 'GET /api/v1/public/ping HTTP/1.1\r\nConnection: close\r\n\r\n'));
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      expect(headers['content-type']).toBe('application/json; charset=utf-8');
      expect(headers['x-request-id']).toMatch(UUID);
      expect(headers['x-ratelimit-limit']).toMatch(/^\d+$/);
      expect(JSON.parse(body)).toEqual({
        statusCode: 400,
        error: 'validation_failed',
        message: 'The request has no Host header.',
        requestId: headers['x-request-id'],
        details: [{ field: 'host', message: 'is required' }],
      });
    });

    it('answers an Expect it does not know as if it were absent, not with a bare 417', async () => {
      const res = await rawGet(port, '/api/v1/public/ping', { Expect: 'something-else' });
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body)).toMatchObject({ error: 'missing_credentials', requestId: res.headers['x-request-id'] });
    });

    it(`answers headers that do not arrive within ${REQUEST_TIMEOUTS.headersMs / 1000} s with 408 request_timeout in the envelope`, async () => {
      const started = Date.now();
      const { head, headers, body } = parse(await rawExchange(port, 'GET /api/v1/public/ping HTTP/1.1\r\nHost: localhost\r\n'));
      expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUTS.headersMs - 100);
      expect(head).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(body)).toEqual({
        statusCode: 408,
        error: 'request_timeout',
        message: expect.any(String),
        requestId: headers['x-request-id'],
      });
    }, 30_000);

    it('serves an HTTP/1.0 request without Host, which needs none', async () => {
      const { head, body } = parse(await rawExchange(port, 'GET /api/v1/public/ping HTTP/1.0\r\n\r\n'));
      expect(head).toMatch(/^HTTP\/1\.[01] 401 /);
      expect(JSON.parse(body)).toMatchObject({ error: 'missing_credentials' });
    });
  });
});

(onRealServices ? describe.skip : describe)('a failing database', () => {
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t);
    await t.prisma.$executeRawUnsafe('ALTER TABLE "ApiKey" RENAME TO "ApiKeyGone"');
  }, 30_000);
  afterAll(() => t.close());

  it('answers 500 internal_error with the headers and without SQL, table names or stack', async () => {
    const res = await t.http.post('/api/v1/api-keys').set('Authorization', `Bearer ${account.owner.token}`).send({ name: 'x' });
    expectError(res, 500, 'internal_error');
    expectRateLimitHeaders(res);
    expect(Object.keys(res.body).sort()).toEqual(['error', 'message', 'requestId', 'statusCode']);
    const text = res.text;
    for (const leak of ['ApiKey', 'relation', 'SELECT', 'INSERT', 'prisma', 'Prisma', 'does not exist', '\n', ' at ']) {
      expect({ leak, found: text.includes(leak) }).toEqual({ leak, found: false });
    }
  });
});
