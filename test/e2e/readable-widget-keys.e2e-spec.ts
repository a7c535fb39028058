import { existsSync, readFileSync } from 'node:fs';
import type { Logger as PinoLogger } from 'pino';
import { PINO } from '../../src/logging/logging.module';
import { issueNonce } from '../utils/widget';
import { createAccount, expectError, startApp, TestAccount, TestApp } from '../utils/test-app';

/** docs/DECISIONS.md, "Widget keys are readable" and "The dashboard may use any key". */
describe('readable widget keys', () => {
  let t: TestApp;
  let account: TestAccount;
  /** Every secret a test made: none may reach an audit event or a log line. */
  const secrets: string[] = [];

  const as = (method: 'get' | 'post' | 'patch' | 'delete', url: string) =>
    t.http[method](url).set('Authorization', `Bearer ${account.owner.token}`);
  const create = async (body: Record<string, unknown>) => {
    const res = await as('post', '/api/v1/api-keys').send({ name: `k${secrets.length + 1}`, challengeWaitMs: 250, ...body });
    expect(res.status).toBe(201);
    secrets.push(res.body.key);
    return res.body as { id: string; key: string; widgetKey: string | null };
  };
  const listed = async (id: string) => {
    const list = await as('get', '/api/v1/api-keys').expect(200);
    return (list.body.data as Array<{ id: string; widgetKey: string | null }>).find((k) => k.id === id)!;
  };
  const read = async (id: string) => (await as('get', `/api/v1/api-keys/${id}`).expect(200)).body as { widgetKey: string | null };
  const challenge = (key: string, origin?: string) => {
    const req = t.http.get('/api/v1/widget/challenge').set('X-Api-Key', key);
    return origin === undefined ? req : req.set('Origin', origin);
  };

  beforeAll(async () => {
    t = await startApp({ PUBLIC_URL: 'https://gatehouse.example.com/', DASHBOARD_ORIGINS: 'https://dash.example.com' });
    account = await createAccount(t, 'pro');
  }, 30_000);
  afterAll(() => t.close());

  it('shows a widget-only key in its creation, the list and the read, at any time', async () => {
    const { id, key, widgetKey } = await create({ scopes: ['widget'], allowedOrigins: ['https://shop.example.com'] });
    expect(widgetKey).toBe(key);
    expect((await listed(id)).widgetKey).toBe(key);
    expect((await read(id)).widgetKey).toBe(key);
    expect((await challenge(key, 'https://shop.example.com')).status).toBe(200);
  });

  it.each([[['verify']], [['public']], [['widget', 'verify']], [['widget', 'verify', 'public']], [undefined]])(
    'never shows a key with scopes %j again: widgetKey is null and the secret is nowhere in list or read',
    async (scopes) => {
      const { id, key, widgetKey } = await create(scopes === undefined ? {} : { scopes });
      expect(widgetKey).toBeNull();
      const list = await as('get', '/api/v1/api-keys').expect(200);
      expect(JSON.stringify(list.body)).not.toContain(key);
      expect((await listed(id)).widgetKey).toBeNull();
      const one = await as('get', `/api/v1/api-keys/${id}`).expect(200);
      expect(JSON.stringify(one.body)).not.toContain(key);
    },
  );

  it('cannot show a widget key made before keys were kept (hash only) until it is rotated; the old secret is never shown', async () => {
    const { id, key: old } = await create({ scopes: ['widget'] });
    // What the migration leaves for the widget keys made before it: the hash alone.
    await t.prisma.apiKey.update({ where: { id }, data: { widgetKey: null } });
    expect((await listed(id)).widgetKey).toBeNull();
    expect((await read(id)).widgetKey).toBeNull();

    const rotated = await as('post', `/api/v1/api-keys/${id}/rotate`).send({ gracePeriodSeconds: 3600 }).expect(200);
    secrets.push(rotated.body.key);
    expect(rotated.body.widgetKey).toBe(rotated.body.key);
    expect((await listed(id)).widgetKey).toBe(rotated.body.key);
    expect((await challenge(old)).status).toBe(200); // still within its grace period
    expect(JSON.stringify((await as('get', '/api/v1/api-keys').expect(200)).body)).not.toContain(old);
  });

  it('rotating a readable widget key makes the new secret the readable one', async () => {
    const { id, key: old } = await create({ scopes: ['widget'] });
    const rotated = await as('post', `/api/v1/api-keys/${id}/rotate`).send({}).expect(200);
    secrets.push(rotated.body.key);
    expect((await read(id)).widgetKey).toBe(rotated.body.key);
    expect(rotated.body.key).not.toBe(old);
  });

  it('rotating a verify key keeps it unreadable', async () => {
    const { id } = await create({ scopes: ['verify'] });
    const rotated = await as('post', `/api/v1/api-keys/${id}/rotate`).send({}).expect(200);
    secrets.push(rotated.body.key);
    expect(rotated.body.widgetKey).toBeNull();
    expect((await read(id)).widgetKey).toBeNull();
  });

  it.each([[['widget', 'verify']], [['widget', 'public']], [['verify']]])(
    'refuses to give a readable widget key the scopes %j with 409 conflict, and changes nothing',
    async (scopes) => {
      const name = `public one, not ${scopes.join('+')}`;
      const { id, key } = await create({ scopes: ['widget'], name });
      const res = await as('patch', `/api/v1/api-keys/${id}`).send({ name: `renamed ${name}`, scopes });
      expectError(res, 409, 'conflict');
      expect(await read(id)).toMatchObject({ name, scopes: ['widget'], widgetKey: key });
      expectError(await t.http.post('/api/v1/nonces/verify').set('X-Api-Key', key).send({ nonce: 'x' }), 403, 'insufficient_permissions');
    },
  );

  it('lets a readable widget key be renamed and its origins changed, readable still', async () => {
    const { id, key } = await create({ scopes: ['widget'] });
    const res = await as('patch', `/api/v1/api-keys/${id}`)
      .send({ name: 'renamed', scopes: ['widget'], allowedOrigins: ['https://www.example.com'] })
      .expect(200);
    expect(res.body).toMatchObject({ name: 'renamed', widgetKey: key, allowedOrigins: ['https://www.example.com'] });
  });

  it('still lets an older widget key (hash only) gain a scope, as before', async () => {
    const { id } = await create({ scopes: ['widget'] });
    await t.prisma.apiKey.update({ where: { id }, data: { widgetKey: null } });
    const res = await as('patch', `/api/v1/api-keys/${id}`).send({ scopes: ['widget', 'verify'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ scopes: ['widget', 'verify'], widgetKey: null });
  });

  it('forgets a widget key when it is revoked', async () => {
    const { id } = await create({ scopes: ['widget'] });
    const res = await as('delete', `/api/v1/api-keys/${id}`).expect(200);
    expect(res.body.widgetKey).toBeNull();
    expect((await t.prisma.apiKey.findUniqueOrThrow({ where: { id } })).widgetKey).toBeNull();
  });

  describe("Gatehouse's own origins", () => {
    it('accept a widget key limited to another site from PUBLIC_URL and DASHBOARD_ORIGINS; any other origin still gets 403', async () => {
      const { key } = await create({ scopes: ['widget'], allowedOrigins: ['https://shop.example.com'] });
      expect((await challenge(key, 'https://shop.example.com')).status).toBe(200);
      expect((await challenge(key, 'https://gatehouse.example.com')).status).toBe(200);
      expect((await challenge(key, 'https://dash.example.com')).status).toBe(200);
      for (const origin of ['https://evil.example', 'http://gatehouse.example.com', 'https://gatehouse.example.com.evil.example']) {
        expectError(await challenge(key, origin), 403, 'insufficient_permissions');
      }
    });

    it('run the whole flow from the dashboard: a nonce issued there verifies valid once, with the dashboard as its host', async () => {
      const widget = await create({ scopes: ['widget'], allowedOrigins: ['https://shop.example.com'] });
      const verifier = await create({ scopes: ['verify'] });
      const { nonce } = await issueNonce(t, widget.key, 'https://gatehouse.example.com');
      const verify = () =>
        t.http.post('/api/v1/nonces/verify').set('X-Api-Key', verifier.key).set('Origin', 'https://gatehouse.example.com');
      expect((await verify().send({ nonce }).expect(200)).body).toMatchObject({ valid: true, hostname: 'gatehouse.example.com' });
      expect((await verify().send({ nonce }).expect(200)).body).toEqual({ valid: false, reason: 'already_used' });
    });
  });

  it('never writes a key to the audit log or the logs', async () => {
    expect(secrets.length).toBeGreaterThan(10);
    const audit = await as('get', '/api/v1/audit-log?limit=200').expect(200);
    expect(audit.body.data.length).toBeGreaterThan(10);
    const events = JSON.stringify(audit.body);
    await new Promise<void>((resolve) => t.app.get<PinoLogger>(PINO).flush(() => resolve()));
    const file = t.config.logFile!;
    const logs = existsSync(file) ? readFileSync(file, 'utf8') : '';
    expect(logs).not.toBe('');
    for (const secret of secrets) {
      expect(events).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});
