import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'supertest';
import { ApiKeyUsageTracker } from '../../src/api-keys/api-key-usage.tracker';
import type { Role } from '../../src/common/principal';
import { listeningPort, rawGet } from '../utils/raw-http';
import { createAccount, createPlan, expectError, expectRateLimitHeaders, startApp, TestAccount, TestApp } from '../utils/test-app';

const KEY_FORMAT = /^gh_[0-9A-Za-z]{38}$/;
const API_KEY_CHALLENGE = 'ApiKey header="X-Api-Key"';

describe('API keys', () => {
  let t: TestApp;
  let account: TestAccount;
  let bearer: string;

  const ping = (key: string) => t.http.get('/api/v1/public/ping').set('X-Api-Key', key);
  const asOwner = (method: 'get' | 'post' | 'patch' | 'delete', url: string, token = bearer) =>
    t.http[method](url).set('Authorization', `Bearer ${token}`);

  /** The key is refused the way docs/API.md ("Errors") says a dead key is refused. */
  const expectDeadKey = (res: Response) => {
    expectError(res, 401, 'invalid_api_key');
    expect(res.headers['www-authenticate']).toBe(API_KEY_CHALLENGE);
    expectRateLimitHeaders(res);
  };

  /** No secret and no hash in what a management response shows. */
  const expectNoSecret = (res: Response, key: string) => {
    expect(JSON.stringify(res.body)).not.toContain(key);
    const items: Record<string, unknown>[] = Array.isArray(res.body.data) ? res.body.data : [res.body];
    for (const item of items) {
      expect(item).not.toHaveProperty('key');
      expect(item).not.toHaveProperty('hash');
      expect(item).not.toHaveProperty('previousHash');
    }
  };

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t, 'pro');
    bearer = account.owner.token;
  }, 30_000);
  afterAll(() => t.close());

  describe('POST /api/v1/api-keys', () => {
    it.each<Role>(['OWNER', 'ADMIN', 'DEVELOPER'])('lets %s create a key that works at once', async (role) => {
      const user = role === 'OWNER' ? account.owner : await account.addUser(role);
      const res = await asOwner('post', '/api/v1/api-keys', user.token).send({ name: `by ${role}` });
      expect(res.status).toBe(201);
      expectRateLimitHeaders(res);
      expect(res.body).toMatchObject({
        name: `by ${role}`,
        status: 'active',
        scopes: ['widget', 'verify', 'public'],
        allowedOrigins: [],
        revokedAt: null,
      });
      expect(res.body.key).toMatch(KEY_FORMAT);
      expect(res.body.prefix).toBe(res.body.key.slice(0, 11));

      const pong = await ping(res.body.key);
      expect({ status: pong.status, body: pong.body }).toEqual({ status: 200, body: { ok: true, accountId: account.id } });
      const config = await t.http.get('/api/v1/widget/config').set('X-Api-Key', res.body.key);
      expect({ status: config.status, body: config.body }).toEqual({ status: 200, body: { accountId: account.id, nonceTtlSeconds: 300 } });
    });

    it('refuses an ANALYST with 403 insufficient_permissions and creates nothing', async () => {
      const analyst = await account.addUser('ANALYST');
      const before = await t.prisma.apiKey.count({ where: { accountId: account.id } });
      const res = await asOwner('post', '/api/v1/api-keys', analyst.token).send({ name: 'nope' });
      expectError(res, 403, 'insufficient_permissions');
      expect(await t.prisma.apiKey.count({ where: { accountId: account.id } })).toBe(before);
    });

    it('shows the secret once and never again in lists, reads, patches or revokes', async () => {
      const { id, key } = await account.createKey({ name: 'shown once' });
      const list = await asOwner('get', '/api/v1/api-keys');
      expect(list.status).toBe(200);
      expect(list.body.data.map((k: { id: string }) => k.id)).toContain(id);
      expectNoSecret(list, key);
      const get = await asOwner('get', `/api/v1/api-keys/${id}`);
      expect(get.body).toMatchObject({ id, name: 'shown once', prefix: key.slice(0, 11) });
      expectNoSecret(get, key);
      const patch = await asOwner('patch', `/api/v1/api-keys/${id}`).send({ name: 'renamed' });
      expect(patch.body).toMatchObject({ id, name: 'renamed' });
      expectNoSecret(patch, key);
      const revoke = await asOwner('delete', `/api/v1/api-keys/${id}`);
      expectNoSecret(revoke, key);
    });

    it('stores only a hash of the secret', async () => {
      const { id, key } = await account.createKey();
      const row = await t.prisma.apiKey.findUniqueOrThrow({ where: { id } });
      for (const value of Object.values(row)) expect(String(value)).not.toContain(key);
      expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    });

    it('refuses an expiry in the past with 400 validation_failed', async () => {
      const res = await asOwner('post', '/api/v1/api-keys').send({ name: 'old', expiresAt: new Date(Date.now() - 60_000).toISOString() });
      expectError(res, 400, 'validation_failed');
      expect(res.body.details).toContainEqual(expect.objectContaining({ field: 'expiresAt' }));
    });

    it('answers 401 invalid_api_key once the key has expired', async () => {
      const expiresAt = new Date(Date.now() + 2_000);
      const { key } = await account.createKey({ expiresAt: expiresAt.toISOString() });
      expect((await ping(key)).status).toBe(200);
      // Waits for the clock, not for a state: the first request after the expiry must be refused.
      await sleep(expiresAt.getTime() - Date.now() + 50);
      expectDeadKey(await ping(key));
    }, 15_000);
  });

  describe('X-Api-Key', () => {
    it.each(['apiKey', 'api_key', 'X-Api-Key'])(
      'never authenticates from the query string (?%s=): the parameter is refused',
      async (param) => {
        const { key } = await account.createKey();
        const res = await t.http.get(`/api/v1/public/ping?${param}=${key}`);
        expectError(res, 400, 'validation_failed');
        expect(res.body.details).toEqual([{ field: param, message: expect.any(String) }]);
        expect(res.headers['www-authenticate']).toBeUndefined();
      },
    );

    it('refuses two X-Api-Key headers as an unknown key, even when both hold the same valid key', async () => {
      const { key } = await account.createKey();
      const port = await listeningPort(t);
      for (const keys of [
        [key, key],
        [key, 'gh_notakey'],
        ['gh_notakey', key],
      ]) {
        const res = await rawGet(port, '/api/v1/public/ping', { 'X-Api-Key': keys });
        expect({ keys, status: res.status, error: (JSON.parse(res.body) as { error: string }).error }).toEqual({
          keys,
          status: 401,
          error: 'invalid_api_key',
        });
        expect(res.headers['x-ratelimit-limit']).toBeDefined();
      }
      expect((await ping(key)).status).toBe(200);
    });

    it('records lastUsedAt after the key is used', async () => {
      const { id, key } = await account.createKey();
      expect((await asOwner('get', `/api/v1/api-keys/${id}`)).body.lastUsedAt).toBeNull();
      const before = Date.now();
      expect((await ping(key)).status).toBe(200);
      await t.app.get(ApiKeyUsageTracker).flush();
      const lastUsedAt = (await asOwner('get', `/api/v1/api-keys/${id}`)).body.lastUsedAt;
      expect(Date.parse(lastUsedAt)).toBeGreaterThanOrEqual(before - 1_000);
      expect(Date.parse(lastUsedAt)).toBeLessThanOrEqual(Date.now() + 1_000);
    });
  });

  describe('lastUsedAt counts accepted requests only', () => {
    const lastUsedAt = async (id: string, token = bearer) => {
      await t.app.get(ApiKeyUsageTracker).flush();
      return (await asOwner('get', `/api/v1/api-keys/${id}`, token)).body.lastUsedAt as string | null;
    };

    it('shows a use at once, before the batch is written', async () => {
      const { id, key } = await account.createKey();
      const before = Date.now();
      expect((await ping(key)).status).toBe(200);
      const shown = (await asOwner('get', `/api/v1/api-keys/${id}`)).body.lastUsedAt;
      expect(Date.parse(shown)).toBeGreaterThanOrEqual(before - 1_000);
      expect((await asOwner('get', '/api/v1/api-keys')).body.data.find((k: { id: string }) => k.id === id).lastUsedAt).toBe(shown);
    });

    it('is not moved by a request from an origin the key does not allow', async () => {
      const { id, key } = await account.createKey({ scopes: ['widget'], allowedOrigins: ['https://shop.example.com'] });
      const res = await t.http.get('/api/v1/widget/config').set('X-Api-Key', key).set('Origin', 'https://elsewhere.example.com');
      expectError(res, 403, 'insufficient_permissions');
      expect(await lastUsedAt(id)).toBeNull();
      expect((await t.http.get('/api/v1/widget/config').set('X-Api-Key', key).set('Origin', 'https://shop.example.com')).status).toBe(200);
      expect(await lastUsedAt(id)).not.toBeNull();
    });

    it('is not moved by a request for a scope the key lacks, nor by the 429s that follow', async () => {
      const small = await createAccount(t, await createPlan(t, 2, 600));
      const { id, key } = await small.createKey({ scopes: ['verify'] });
      for (let i = 0; i < 2; i++) expectError(await ping(key), 403, 'insufficient_permissions');
      expectError(await ping(key), 429, 'rate_limit_exceeded');
      expect(await lastUsedAt(id, small.owner.token)).toBeNull();
    });

    it('is not moved by a revoked key', async () => {
      const { id, key } = await account.createKey();
      await asOwner('delete', `/api/v1/api-keys/${id}`).expect(200);
      expectDeadKey(await ping(key));
      expect(await lastUsedAt(id)).toBeNull();
    });
  });

  describe('names', () => {
    it('are unique among active keys: a second key of the same name is 409 conflict naming the clash, and nothing is made', async () => {
      const first = await asOwner('post', '/api/v1/api-keys').send({ name: 'Checkout widget', scopes: ['widget'] });
      expect(first.status).toBe(201);
      const before = await t.prisma.apiKey.count({ where: { accountId: account.id } });
      const again = await asOwner('post', '/api/v1/api-keys').send({ name: 'Checkout widget', scopes: ['verify'] });
      expectError(again, 409, 'conflict');
      expect(again.body.message).toContain('"Checkout widget"');
      expect(again.body.message).toContain(first.body.prefix);
      expect(await t.prisma.apiKey.count({ where: { accountId: account.id } })).toBe(before);
      // Another account may use the name; a revoked key's name is free again.
      expect((await (await createAccount(t)).createKey({ name: 'Checkout widget' })).id).toEqual(expect.any(String));
      await asOwner('delete', `/api/v1/api-keys/${first.body.id}`).expect(200);
      expect((await asOwner('post', '/api/v1/api-keys').send({ name: 'Checkout widget' })).status).toBe(201);
    });

    it("refuse a rename onto another active key's name, and keep a key's own name", async () => {
      await account.createKey({ name: 'Taken' });
      const { id } = await account.createKey({ name: 'Free' });
      expectError(await asOwner('patch', `/api/v1/api-keys/${id}`).send({ name: 'Taken' }), 409, 'conflict');
      expect((await asOwner('get', `/api/v1/api-keys/${id}`)).body.name).toBe('Free');
      expect((await asOwner('patch', `/api/v1/api-keys/${id}`).send({ name: 'Free', scopes: ['public'] })).status).toBe(200);
    });

    it('hold under concurrent creates: of five at once, one is made', async () => {
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => asOwner('post', '/api/v1/api-keys').send({ name: 'Raced', scopes: ['public'] })),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
      expect(await t.prisma.apiKey.count({ where: { accountId: account.id, name: 'Raced' } })).toBe(1);
    });
  });

  describe('PATCH /api/v1/api-keys/:id', () => {
    it('changes name and scopes, and a removed scope is refused at once', async () => {
      const { id, key } = await account.createKey();
      expect((await ping(key)).status).toBe(200);
      const res = await asOwner('patch', `/api/v1/api-keys/${id}`).send({ name: 'widget only', scopes: ['widget', 'verify'] });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, name: 'widget only', scopes: ['widget', 'verify'], status: 'active' });
      const refused = await ping(key);
      expectError(refused, 403, 'insufficient_permissions');
      expectRateLimitHeaders(refused);
      expect((await t.http.get('/api/v1/widget/config').set('X-Api-Key', key)).status).toBe(200);
    });
  });

  describe('DELETE /api/v1/api-keys/:id', () => {
    it('revokes the key for good, at once, and again idempotently', async () => {
      const { id, key } = await account.createKey();
      expect((await ping(key)).status).toBe(200);
      const res = await asOwner('delete', `/api/v1/api-keys/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, status: 'revoked', revokedAt: expect.any(String) });
      expectDeadKey(await ping(key));
      const again = await asOwner('delete', `/api/v1/api-keys/${id}`);
      // The ping's lastUsedAt may be written (every 5 s) between the two answers; the rest is the same.
      expect({ status: again.status, body: { ...again.body, lastUsedAt: res.body.lastUsedAt } }).toEqual({ status: 200, body: res.body });
    });
  });

  describe('POST /api/v1/api-keys/:id/rotate', () => {
    it('without a grace period, the new secret works and the old one stops at once', async () => {
      const { id, key: old } = await account.createKey();
      expect((await ping(old)).status).toBe(200);
      const res = await asOwner('post', `/api/v1/api-keys/${id}/rotate`).send({});
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, status: 'active', previousSecretExpiresAt: null });
      expect(res.body.key).toMatch(KEY_FORMAT);
      expect(res.body.key).not.toBe(old);
      expect(res.body.prefix).toBe(res.body.key.slice(0, 11));
      expect((await ping(res.body.key)).status).toBe(200);
      expectDeadKey(await ping(old));
    });

    it('with a grace period, both secrets work and the response says until when', async () => {
      const { id, key: old } = await account.createKey();
      expect((await ping(old)).status).toBe(200);
      const before = Date.now();
      const res = await asOwner('post', `/api/v1/api-keys/${id}/rotate`).send({ gracePeriodSeconds: 3600 });
      expect(res.status).toBe(200);
      const until = Date.parse(res.body.previousSecretExpiresAt);
      expect(until).toBeGreaterThanOrEqual(before + 3_599_000);
      expect(until).toBeLessThanOrEqual(Date.now() + 3_601_000);
      expect((await ping(res.body.key)).status).toBe(200);
      expect((await ping(old)).status).toBe(200);
    });

    it('keeps only the latest previous secret: a second rotation ends the first one at once', async () => {
      const { id, key: first } = await account.createKey();
      const second = (await asOwner('post', `/api/v1/api-keys/${id}/rotate`).send({ gracePeriodSeconds: 3600 })).body.key;
      expect((await ping(first)).status).toBe(200);
      const third = (await asOwner('post', `/api/v1/api-keys/${id}/rotate`).send({ gracePeriodSeconds: 3600 })).body.key;
      expectDeadKey(await ping(first));
      expect((await ping(second)).status).toBe(200);
      expect((await ping(third)).status).toBe(200);
    });

    it('revoking during a grace period stops both secrets at once', async () => {
      const { id, key: old } = await account.createKey();
      const fresh = (await asOwner('post', `/api/v1/api-keys/${id}/rotate`).send({ gracePeriodSeconds: 3600 })).body.key;
      expect((await ping(old)).status).toBe(200);
      expect((await ping(fresh)).status).toBe(200);
      const res = await asOwner('delete', `/api/v1/api-keys/${id}`);
      expect(res.body).toMatchObject({ status: 'revoked', previousSecretExpiresAt: null });
      expectDeadKey(await ping(old));
      expectDeadKey(await ping(fresh));
    });

    it('takes no body at all: the old secret stops at once', async () => {
      const { id, key: old } = await account.createKey();
      const res = await asOwner('post', `/api/v1/api-keys/${id}/rotate`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, previousSecretExpiresAt: null });
      expectDeadKey(await ping(old));
    });

    it('refuses to rotate a revoked key with 409 conflict', async () => {
      const { id } = await account.createKey();
      await asOwner('delete', `/api/v1/api-keys/${id}`).expect(200);
      expectError(await asOwner('post', `/api/v1/api-keys/${id}/rotate`).send({}), 409, 'conflict');
    });

    it.each([86401, -1])('refuses gracePeriodSeconds %d with 400 validation_failed and keeps the secret', async (grace) => {
      const { id, key } = await account.createKey();
      const res = await asOwner('post', `/api/v1/api-keys/${id}/rotate`).send({ gracePeriodSeconds: grace });
      expectError(res, 400, 'validation_failed');
      expect(res.body.details).toContainEqual(expect.objectContaining({ field: 'gracePeriodSeconds' }));
      expect((await ping(key)).status).toBe(200);
    });
  });

  describe('another account', () => {
    it('sees none of our keys: 404 not_found on every route, and the key is unchanged', async () => {
      const { id, key } = await account.createKey({ name: 'mine' });
      const before = (await asOwner('get', `/api/v1/api-keys/${id}`)).body;
      const other = await createAccount(t, 'pro');
      const theirs = await other.createKey({ name: 'theirs' });
      const as = (method: 'get' | 'post' | 'patch' | 'delete', url: string) => asOwner(method, url, other.owner.token);

      expectError(await as('get', `/api/v1/api-keys/${id}`), 404, 'not_found');
      expectError(await as('patch', `/api/v1/api-keys/${id}`).send({ name: 'stolen', scopes: ['verify'] }), 404, 'not_found');
      expectError(await as('delete', `/api/v1/api-keys/${id}`), 404, 'not_found');
      expectError(await as('post', `/api/v1/api-keys/${id}/rotate`).send({}), 404, 'not_found');

      expect((await asOwner('get', `/api/v1/api-keys/${id}`)).body).toEqual(before);
      expect((await ping(key)).status).toBe(200);
      const list = await as('get', '/api/v1/api-keys');
      expect(list.body.data.map((k: { id: string }) => k.id)).toEqual([theirs.id]);
    });
  });
});
