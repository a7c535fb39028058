import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { WebhookEmitter } from '../../src/webhooks/webhook-emitter';
import { WebhookNotices } from '../../src/webhooks/webhook-notices';
import { eventually } from '../utils/eventually';
import { Inbox, startInbox } from '../utils/smtp';
import { WebhookReceiver } from '../utils/webhook-receiver';
import { createAccount, expectError, expectRateLimitHeaders, onRealServices, startApp, TestAccount, TestApp } from '../utils/test-app';

/** A public address (no DNS here): registration accepts it; nothing in these tests is delivered to it. */
const PUBLIC = 'https://93.184.215.14';

const api = (t: TestApp, token: string) => {
  const auth = { Authorization: `Bearer ${token}` };
  return {
    list: () => t.http.get('/api/v1/webhooks').set(auth),
    get: (id: string) => t.http.get(`/api/v1/webhooks/${id}`).set(auth),
    create: (body: object) => t.http.post('/api/v1/webhooks').set(auth).send(body),
    update: (id: string, body: object) => t.http.patch(`/api/v1/webhooks/${id}`).set(auth).send(body),
    remove: (id: string) => t.http.delete(`/api/v1/webhooks/${id}`).set(auth),
    rotate: (id: string, body: object = {}) => t.http.post(`/api/v1/webhooks/${id}/rotate-secret`).set(auth).send(body),
    test: (id: string) => t.http.post(`/api/v1/webhooks/${id}/test`).set(auth),
    deliveries: (id: string, cursor?: string) =>
      t.http
        .get(`/api/v1/webhooks/${id}/deliveries`)
        .query(cursor === undefined ? {} : { cursor })
        .set(auth),
    retry: (id: string, deliveryId: string) => t.http.post(`/api/v1/webhooks/${id}/deliveries/${deliveryId}/retry`).set(auth),
  };
};

describe('/api/v1/webhooks', () => {
  let t: TestApp;
  let account: TestAccount;
  let other: TestAccount;

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t);
    other = await createAccount(t);
  });
  afterAll(() => t.close());

  it('creates (the secret shown once), reads, lists newest first, updates and deletes an endpoint, each audited', async () => {
    const owner = api(t, account.owner.token);
    const first = await owner.create({
      url: `${PUBLIC}/hooks/a`,
      events: ['api_key.revoked', 'rate_limit.exceeded'],
      description: 'Orders',
    });
    expect(first.status).toBe(201);
    expectRateLimitHeaders(first);
    expect(first.body).toEqual({
      id: expect.any(String),
      url: `${PUBLIC}/hooks/a`,
      description: 'Orders',
      events: ['api_key.revoked', 'rate_limit.exceeded'],
      enabled: true,
      disabledReason: null,
      previousSecretExpiresAt: null,
      lastDeliveryAt: null,
      lastDeliveryStatus: null,
      lastDeliveryResponseStatus: null,
      createdAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { secret, ...shown } = first.body as { secret: string; id: string };
    const second = (await owner.create({ url: `${PUBLIC}/hooks/b` }).expect(201)).body as { id: string; events: string[] };
    expect(second.events).toEqual([]); // all events

    const list = (await owner.list().expect(200)).body as { data: { id: string }[] };
    expect(list.data.map((w) => w.id)).toEqual([second.id, shown.id]);
    expect(JSON.stringify(list)).not.toContain(secret);
    expect((await owner.get(shown.id).expect(200)).body).toEqual(shown);

    const updated = await owner.update(shown.id, { events: ['member.joined'], description: 'Team', enabled: false }).expect(200);
    expect(updated.body).toMatchObject({ events: ['member.joined'], description: 'Team', enabled: false, disabledReason: null });
    expect((await owner.update(shown.id, { enabled: true }).expect(200)).body.enabled).toBe(true);

    await owner.remove(shown.id).expect(204);
    expectError(await owner.get(shown.id), 404, 'not_found');
    expectError(await owner.remove(shown.id), 404, 'not_found');

    const actions = (
      await t.prisma.auditEvent.findMany({ where: { accountId: account.id, targetId: shown.id }, orderBy: { createdAt: 'asc' } })
    ).map((e) => e.action);
    expect(actions).toEqual(['webhook.created', 'webhook.updated', 'webhook.updated', 'webhook.deleted']);
    const audited = JSON.stringify(await t.prisma.auditEvent.findMany({ where: { accountId: account.id } }));
    expect(audited).not.toContain(secret);
  });

  it.each(['ADMIN', 'DEVELOPER'] as const)('lets a %s manage endpoints', async (role) => {
    const user = api(t, (await account.addUser(role)).token);
    const { id } = (await user.create({ url: `${PUBLIC}/x` }).expect(201)).body as { id: string };
    await user.list().expect(200);
    await user.rotate(id).expect(200);
    await user.remove(id).expect(204);
  });

  it("keeps accounts apart: another account's endpoint and its deliveries are absent", async () => {
    const owner = api(t, account.owner.token);
    const { id } = (await owner.create({ url: `${PUBLIC}/private` }).expect(201)).body as { id: string };
    const deliveryId = (await owner.test(id).expect(202)).body.deliveryId as string;
    const stranger = api(t, other.owner.token);
    expect((await stranger.list().expect(200)).body.data).toEqual([]);
    for (const res of [
      await stranger.get(id),
      await stranger.update(id, { enabled: false }),
      await stranger.remove(id),
      await stranger.rotate(id),
      await stranger.test(id),
      await stranger.deliveries(id),
      await stranger.retry(id, deliveryId),
    ])
      expectError(res, 404, 'not_found');
    // A delivery id of another endpoint of the same account is not this endpoint's.
    const { id: sibling } = (await owner.create({ url: `${PUBLIC}/sibling` }).expect(201)).body as { id: string };
    expectError(await owner.retry(sibling, deliveryId), 404, 'not_found');
    expect((await owner.get(id).expect(200)).body.enabled).toBe(true);
  });

  it.each([
    [{ url: 'http://93.184.215.14/hook' }, 'url'],
    [{ url: 'ftp://93.184.215.14/hook' }, 'url'],
    [{ url: 'https://user:pw@93.184.215.14/hook' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ url: 'https://127.0.0.1/hook' }, 'url'],
    [{ url: 'https://localhost/hook' }, 'url'],
    [{ url: 'https://10.1.2.3/hook' }, 'url'],
    [{ url: 'https://192.168.0.10/hook' }, 'url'],
    [{ url: 'https://169.254.169.254/latest/meta-data' }, 'url'],
    [{ url: 'https://[::1]/hook' }, 'url'],
    [{ url: 'https://[::ffff:127.0.0.1]/hook' }, 'url'],
    [{ url: 'https://[fd00::1]/hook' }, 'url'],
    [{ url: 'https://0.0.0.0/hook' }, 'url'],
    [{ url: 'https://no-such-host.invalid/hook' }, 'url'],
    [{}, 'url'],
    [{ url: `${PUBLIC}/hook`, events: ['api_key.created', 'api_key.eaten'] }, 'events'],
    [{ url: `${PUBLIC}/hook`, events: 'api_key.created' }, 'events'],
    [{ url: `${PUBLIC}/hook`, description: '' }, 'description'],
    [{ url: `${PUBLIC}/hook`, secret: 'whsec_mine' }, 'secret'],
  ])('answers 400 validation_failed for %j and registers nothing', async (body, field) => {
    const before = await t.prisma.webhookEndpoint.count({ where: { accountId: other.id } });
    const res = await api(t, other.owner.token).create(body);
    expectError(res, 400, 'validation_failed');
    expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    expect(await t.prisma.webhookEndpoint.count({ where: { accountId: other.id } })).toBe(before);
  });

  it('answers 400 for a URL over 2048 characters', async () => {
    const res = await api(t, other.owner.token).create({ url: `${PUBLIC}/${'a'.repeat(2030)}` });
    expectError(res, 400, 'validation_failed');
    expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'url' })]));
  });

  it('refuses a private URL on update too, and changes nothing', async () => {
    const owner = api(t, account.owner.token);
    const { id } = (await owner.create({ url: `${PUBLIC}/keep` }).expect(201)).body as { id: string };
    expectError(await owner.update(id, { url: 'https://127.0.0.1/steal', description: 'x' }), 400, 'validation_failed');
    expect((await owner.get(id)).body).toMatchObject({ url: `${PUBLIC}/keep`, description: null });
  });

  it('removes a description with null; an empty or too long one is refused and changes nothing; each change audited', async () => {
    const owner = api(t, account.owner.token);
    const { id } = (await owner.create({ url: `${PUBLIC}/described` }).expect(201)).body as { id: string };
    expect((await owner.update(id, { description: 'Billing' }).expect(200)).body.description).toBe('Billing');

    const removed = await owner.update(id, { description: null }).expect(200);
    expect(removed.body).toMatchObject({ id, url: `${PUBLIC}/described`, description: null });
    expect((await owner.get(id).expect(200)).body.description).toBeNull();
    expect((await t.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } })).description).toBeNull();

    await owner.update(id, { description: 'Billing again' }).expect(200);
    for (const description of ['', 'x'.repeat(201)]) {
      const refused = await owner.update(id, { description });
      expectError(refused, 400, 'validation_failed');
      expect(refused.body.details).toEqual([expect.objectContaining({ field: 'description' })]);
    }
    expect((await owner.get(id).expect(200)).body.description).toBe('Billing again');

    const updates = await t.prisma.auditEvent.findMany({ where: { accountId: account.id, action: 'webhook.updated', targetId: id } });
    const details = updates.map((e) => e.details);
    expect(details).toHaveLength(3);
    expect(details).toEqual(expect.arrayContaining([{ description: 'Billing' }, { description: null }, { description: 'Billing again' }]));
  });

  it.each([{ url: null }, { events: null }, { enabled: null }])('refuses %j on update (400) and changes nothing', async (body) => {
    const owner = api(t, account.owner.token);
    const { id } = (await owner.create({ url: `${PUBLIC}/nulls`, events: ['member.joined'] }).expect(201)).body as { id: string };
    const res = await owner.update(id, body);
    expectError(res, 400, 'validation_failed');
    expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: Object.keys(body)[0] })]));
    expect((await owner.get(id).expect(200)).body).toMatchObject({ url: `${PUBLIC}/nulls`, events: ['member.joined'], enabled: true });
    expect(await t.prisma.auditEvent.count({ where: { action: 'webhook.updated', targetId: id } })).toBe(0);
  });

  it('answers 400 for a malformed id, cursor or grace period, and 404 for an unknown id', async () => {
    const owner = api(t, account.owner.token);
    const { id } = (await owner.create({ url: `${PUBLIC}/bad-input` }).expect(201)).body as { id: string };
    expectError(await owner.remove('nope'), 400, 'validation_failed');
    expectError(await owner.remove(randomUUID()), 404, 'not_found');
    expectError(await owner.deliveries(id, '!!'), 400, 'validation_failed');
    expectError(await owner.deliveries(id, 'bm9wZQ'), 400, 'validation_failed');
    expectError(await owner.rotate(id, { gracePeriodSeconds: -1 }), 400, 'validation_failed');
    expectError(await owner.rotate(id, { gracePeriodSeconds: 86401 }), 400, 'validation_failed');
    expectError(await owner.retry(id, 'nope'), 400, 'validation_failed');
    expectError(await owner.retry(id, randomUUID()), 404, 'not_found');
  });
});

/** Deliveries to a real HTTP receiver on 127.0.0.1, which only WEBHOOK_ALLOW_PRIVATE=true allows. */
describe('webhook deliveries', () => {
  let t: TestApp;
  let account: TestAccount;
  let receiver: WebhookReceiver;
  let owner: ReturnType<typeof api>;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    account = await createAccount(t);
    owner = api(t, account.owner.token);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const register = async (path: string, body: object = {}) =>
    (await owner.create({ url: receiver.url(path), ...body }).expect(201)).body as { id: string; secret: string };

  /** The Standard Webhooks verifier of the `standardwebhooks` package: throws unless the signature is right. */
  const verified = (secret: string, got: { body: string; headers: Record<string, string> }) =>
    new Webhook(secret).verify(got.body, got.headers) as { type: string; timestamp: string; data: Record<string, unknown> };

  const deliveriesOf = async (id: string) =>
    (await owner.deliveries(id).expect(200)).body.data as {
      id: string;
      messageId: string;
      eventType: string;
      status: string;
      attemptCount: number;
      nextAttemptAt: string | null;
      attempts: { responseStatus: number | null; error: string | null; durationMs: number; responseBody: string | null }[];
    }[];

  it('sends the events an endpoint subscribes to, signed as Standard Webhooks says, naming the resource and carrying no secret', async () => {
    const all = await register('/all');
    const revokedOnly = await register('/revoked-only', { events: ['api_key.revoked'] });
    const created = (
      await t.http.post('/api/v1/api-keys').set('Authorization', `Bearer ${account.owner.token}`).send({ name: 'Shop' }).expect(201)
    ).body as { id: string; key: string };
    const [got] = await receiver.waitFor('/all');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    const event = verified(all.secret, got);
    expect(event).toEqual({
      type: 'api_key.created',
      timestamp: expect.any(String),
      data: {
        apiKey: { id: created.id, name: 'Shop', prefix: expect.any(String), scopes: ['widget', 'verify', 'public'], expiresAt: null },
        actor: { id: account.owner.id, email: account.owner.email },
      },
    });
    expect(got.body).not.toContain(created.key);
    expect(() => verified(revokedOnly.secret, got)).toThrow(); // signed with the endpoint's own secret

    await t.http.delete(`/api/v1/api-keys/${created.id}`).set('Authorization', `Bearer ${account.owner.token}`).expect(200);
    const [revoked] = await receiver.waitFor('/revoked-only');
    expect(verified(revokedOnly.secret, revoked)).toMatchObject({
      type: 'api_key.revoked',
      data: { apiKey: { id: created.id, name: 'Shop' } },
    });
    await receiver.waitFor('/all', 2);
    expect(receiver.at('/revoked-only')).toHaveLength(1); // not api_key.created

    // The receiver has the request before the sender records its answer: wait for the record.
    const [delivery] = await eventually(async () => {
      const deliveries = await deliveriesOf(all.id);
      expect(deliveries[0]).toMatchObject({ eventType: 'api_key.revoked', status: 'delivered', attemptCount: 1, nextAttemptAt: null });
      return deliveries;
    });
    expect(delivery.attempts[0]).toMatchObject({ responseStatus: 200, error: null, responseBody: 'ok' });
    expect((await owner.get(all.id)).body).toMatchObject({ lastDeliveryStatus: 'delivered', lastDeliveryResponseStatus: 200 });
  });

  it('sends nothing for a change that rolls back, and the event of one that commits', async () => {
    const hook = await register('/atomic');
    const emitter = t.app.get(WebhookEmitter);
    const data = { member: { id: randomUUID(), email: 'rolled@example.com', role: 'ANALYST' } };
    await expect(
      t.prisma.$transaction(async (tx) => {
        await emitter.emit(tx, account.id, 'member.joined', data);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await t.prisma.$transaction((tx) =>
      emitter.emit(tx, account.id, 'member.joined', { member: { ...data.member, email: 'kept@example.com' } }),
    );
    const [got] = await receiver.waitFor('/atomic');
    expect(verified(hook.secret, got).data).toMatchObject({ member: { email: 'kept@example.com' } });
    await new Promise((r) => setTimeout(r, 1500)); // more than a poll interval: nothing else comes
    expect(receiver.at('/atomic')).toHaveLength(1);
    expect((await deliveriesOf(hook.id)).map((d) => d.eventType)).toEqual(['member.joined']);
  });

  it('tries again after a failure with the same webhook-id, and records each attempt', async () => {
    receiver.on('/flaky', (_req, res, nth) => {
      res.statusCode = nth === 1 ? 503 : 200;
      res.end(nth === 1 ? 'busy' : 'fine');
    });
    const hook = await register('/flaky');
    const { deliveryId } = (await owner.test(hook.id).expect(202)).body as { deliveryId: string };
    const [first, second] = await receiver.waitFor('/flaky', 2, 15_000);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.at - first.at).toBeGreaterThanOrEqual(4_500); // the first retry comes after about 5 s
    expect(verified(hook.secret, second).type).toBe('webhook.test');
    const [delivery] = await eventually(async () => {
      const d = await deliveriesOf(hook.id);
      expect(d[0].status).toBe('delivered');
      return d;
    });
    expect(delivery.id).toBe(deliveryId);
    expect(delivery.attempts.map((a) => [a.responseStatus, a.responseBody])).toEqual([
      [200, 'fine'],
      [503, 'busy'],
    ]);
  });

  it('follows no redirect, keeps 1 KB of a 100 MB answer, and survives a reset connection', async () => {
    receiver.on('/redirect', (_req, res) => {
      res.writeHead(302, { location: receiver.url('/elsewhere') }).end();
    });
    receiver.on('/huge', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      const pump = () => {
        while (sent < 100 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
        if (sent < 100 * 1024 * 1024) res.once('drain', pump);
        else res.end();
      };
      pump();
    });
    receiver.on('/reset', (req) => req.socket.destroy());
    const redirect = await register('/redirect');
    const huge = await register('/huge');
    const reset = await register('/reset');
    for (const hook of [redirect, huge, reset]) await owner.test(hook.id).expect(202);
    const attemptOf = (id: string) =>
      eventually(async () => {
        const [d] = await deliveriesOf(id);
        expect(d.attempts.length).toBeGreaterThanOrEqual(1);
        return { delivery: d, attempt: d.attempts[d.attempts.length - 1] };
      });
    const r = await attemptOf(redirect.id);
    expect(r.attempt).toMatchObject({ responseStatus: 302, error: 'redirects are not followed' });
    expect(r.delivery.status).toBe('pending'); // retried later, as any failure
    expect(receiver.at('/elsewhere')).toHaveLength(0);
    const h = await attemptOf(huge.id);
    expect(h.delivery.status).toBe('delivered');
    expect(h.attempt.responseBody).toBe('x'.repeat(1024));
    const x = await attemptOf(reset.id);
    expect(x.attempt).toMatchObject({ responseStatus: null, error: expect.any(String) });
    expect(x.delivery.status).toBe('pending');
  });

  it('gives up on a receiver that does not answer within 10 s, and delivers to others meanwhile', async () => {
    const hanging: import('node:http').ServerResponse[] = [];
    receiver.on('/hang', (_req, res) => hanging.push(res));
    const hang = await register('/hang');
    const quick = await register('/quick');
    await owner.test(hang.id).expect(202);
    await receiver.waitFor('/hang');
    await owner.test(quick.id).expect(202);
    const [answered] = await receiver.waitFor('/quick');
    expect(answered.at - receiver.at('/hang')[0].at).toBeLessThan(9_000); // not queued behind the hanging one
    const [d] = await eventually(
      async () => {
        const list = await deliveriesOf(hang.id);
        expect(list[0].attempts).toHaveLength(1);
        return list;
      },
      { timeoutMs: 20_000 },
    );
    expect(d.attempts[0]).toMatchObject({ responseStatus: null, error: 'no complete answer within 10 s' });
    expect(d.attempts[0].durationMs).toBeGreaterThanOrEqual(10_000);
    expect(d.status).toBe('pending');
    for (const res of hanging) res.destroy();
  }, 40_000);

  it('disables an endpoint that answers 410 Gone, and audits it', async () => {
    receiver.on('/gone', (_req, res) => {
      res.statusCode = 410;
      res.end();
    });
    const hook = await register('/gone');
    await owner.test(hook.id).expect(202);
    const endpoint = await eventually(async () => {
      const e = (await owner.get(hook.id)).body as { enabled: boolean; disabledReason: string | null };
      expect(e.enabled).toBe(false);
      return e;
    });
    expect(endpoint.disabledReason).toBe('gone');
    const audit = await t.prisma.auditEvent.findFirst({ where: { accountId: account.id, action: 'webhook.disabled', targetId: hook.id } });
    expect(audit?.details).toMatchObject({ reason: 'gone' });
    // Disabled: events no longer go there; a retry is refused until it is enabled again.
    const [delivery] = await deliveriesOf(hook.id);
    expect(delivery.status).toBe('failed');
    expectError(await owner.retry(hook.id, delivery.id), 409, 'conflict');
    await t.http.post('/api/v1/api-keys').set('Authorization', `Bearer ${account.owner.token}`).send({ name: 'After' }).expect(201);
    expect(await deliveriesOf(hook.id)).toHaveLength(1);
    await owner.update(hook.id, { enabled: true }).expect(200);
    expect((await owner.get(hook.id)).body).toMatchObject({ enabled: true, disabledReason: null });
  });

  it('signs with the old and the new secret during a rotation’s grace period', async () => {
    const hook = await register('/rotated');
    const rotated = (await owner.rotate(hook.id, { gracePeriodSeconds: 600 }).expect(200)).body as {
      secret: string;
      previousSecretExpiresAt: string;
    };
    expect(rotated.secret).not.toBe(hook.secret);
    expect(Date.parse(rotated.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(590_000);
    await owner.test(hook.id).expect(202);
    const [got] = await receiver.waitFor('/rotated');
    expect(got.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verified(rotated.secret, got).type).toBe('webhook.test');
    expect(verified(hook.secret, got).type).toBe('webhook.test');
    // Without a grace period the old secret stops signing at once.
    const again = (await owner.rotate(hook.id).expect(200)).body as { secret: string; previousSecretExpiresAt: null };
    expect(again.previousSecretExpiresAt).toBeNull();
    await owner.test(hook.id).expect(202);
    const [, latest] = await receiver.waitFor('/rotated', 2);
    expect(verified(again.secret, latest).type).toBe('webhook.test');
    expect(() => verified(rotated.secret, latest)).toThrow();
    const rotations = await t.prisma.auditEvent.findMany({
      where: { accountId: account.id, action: 'webhook.secret_rotated', targetId: hook.id },
      orderBy: { createdAt: 'asc' },
    });
    expect(rotations.map((e) => e.details)).toEqual([{ gracePeriodSeconds: 600 }, { gracePeriodSeconds: 0 }]);
  });

  it('retries a delivered delivery on request with the same webhook-id, and refuses one still pending', async () => {
    const hook = await register('/retry');
    const { deliveryId } = (await owner.test(hook.id).expect(202)).body as { deliveryId: string };
    const [first] = await receiver.waitFor('/retry');
    await eventually(async () => expect((await deliveriesOf(hook.id))[0].status).toBe('delivered'));
    await owner.retry(hook.id, deliveryId).expect(202);
    const [, second] = await receiver.waitFor('/retry', 2);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);

    receiver.on('/pending', (_req, res) => {
      res.statusCode = 500;
      res.end();
    });
    const failing = await register('/pending');
    const pending = (await owner.test(failing.id).expect(202)).body as { deliveryId: string };
    await receiver.waitFor('/pending');
    await eventually(async () => expect((await deliveriesOf(failing.id))[0].attemptCount).toBe(1));
    expectError(await owner.retry(failing.id, pending.deliveryId), 409, 'conflict');
    const actions = (await t.prisma.auditEvent.findMany({ where: { accountId: account.id, targetId: hook.id } })).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['webhook.test_sent', 'webhook.delivery_retried']));
  });

  it('sends member.joined when an invitation is accepted and member.removed when the member is removed, naming the member and carrying no secret', async () => {
    const team = await createAccount(t);
    const auth = { Authorization: `Bearer ${team.owner.token}` };
    const hook = (
      await api(t, team.owner.token)
        .create({ url: receiver.url('/members'), events: ['member.joined', 'member.removed'] })
        .expect(201)
    ).body as { secret: string };
    const email = `joiner-${randomUUID()}@example.com`;
    const password = 'a long enough passphrase to join with';
    const invitation = (await t.http.post('/api/v1/team/invitations').set(auth).send({ email, role: 'DEVELOPER' }).expect(201)).body as {
      token: string;
    };
    const session = (await t.http.post('/api/v1/auth/invitations/accept').send({ token: invitation.token, password }).expect(200)).body as {
      token: string;
    };
    const joiner = (await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${session.token}`).expect(200)).body as { id: string };
    const member = { id: joiner.id, email, role: 'DEVELOPER' };

    const [joined] = await receiver.waitFor('/members');
    expect(verified(hook.secret, joined)).toEqual({ type: 'member.joined', timestamp: expect.any(String), data: { member } });
    const { passwordHash } = await t.prisma.user.findUniqueOrThrow({ where: { id: joiner.id } });

    await t.http.delete(`/api/v1/team/members/${joiner.id}`).set(auth).expect(204);
    const [, removed] = await receiver.waitFor('/members', 2);
    expect(removed.headers['webhook-id']).not.toBe(joined.headers['webhook-id']);
    expect(verified(hook.secret, removed)).toEqual({
      type: 'member.removed',
      timestamp: expect.any(String),
      data: { member, actor: { id: team.owner.id, email: team.owner.email } },
    });
    for (const got of [joined, removed])
      for (const secret of [invitation.token, password, passwordHash, session.token, team.owner.token, hook.secret])
        expect(got.body).not.toContain(secret);
  });

  it('sends to a URL changed by PATCH from the next attempt on, a retry already scheduled included, and audits the change', async () => {
    receiver.on('/moved-from', (_req, res) => {
      res.statusCode = 503;
      res.end('moving');
    });
    const hook = await register('/moved-from');
    await owner.test(hook.id).expect(202);
    const [first] = await receiver.waitFor('/moved-from');
    // Its retry is due about 5 s after this failure; the endpoint moves meanwhile.
    const moved = await owner.update(hook.id, { url: receiver.url('/moved-to') }).expect(200);
    expect(moved.body.url).toBe(receiver.url('/moved-to'));
    expect((await owner.get(hook.id)).body.url).toBe(receiver.url('/moved-to'));

    const [retried] = await receiver.waitFor('/moved-to', 1, 15_000);
    expect(retried.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(verified(hook.secret, retried).type).toBe('webhook.test');
    await owner.test(hook.id).expect(202);
    const [, next] = await receiver.waitFor('/moved-to', 2);
    expect(next.headers['webhook-id']).not.toBe(first.headers['webhook-id']);
    expect(verified(hook.secret, next).type).toBe('webhook.test');
    expect(receiver.at('/moved-from')).toHaveLength(1);

    const updates = await t.prisma.auditEvent.findMany({ where: { accountId: account.id, action: 'webhook.updated', targetId: hook.id } });
    expect(updates.map((e) => [e.actorId, e.details])).toEqual([[account.owner.id, { url: receiver.url('/moved-to') }]]);
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
    'https://169.254.169.254/computeMetadata/v1/',
    'http://[fd00:ec2::254]/latest/meta-data/',
    'http://[::ffff:169.254.169.254]/latest/meta-data/',
    'http://169.254.170.2/v2/credentials/',
    'http://100.100.100.200/latest/meta-data/',
  ])('refuses the cloud metadata address %s even with WEBHOOK_ALLOW_PRIVATE=true, on registration and on update', async (url) => {
    const before = await t.prisma.webhookEndpoint.count({ where: { accountId: account.id } });
    const res = await owner.create({ url });
    expectError(res, 400, 'validation_failed');
    expect(res.body.details).toEqual([{ field: 'url', message: 'url must not point to a cloud metadata address' }]);
    expect(await t.prisma.webhookEndpoint.count({ where: { accountId: account.id } })).toBe(before);
    const hook = await register('/stays');
    expectError(await owner.update(hook.id, { url }), 400, 'validation_failed');
    expect((await owner.get(hook.id)).body.url).toBe(receiver.url('/stays'));
  });

  it('refuses at delivery a cloud metadata address the URL came to point to, even with WEBHOOK_ALLOW_PRIVATE=true', async () => {
    const metadata = await register('/metadata');
    const loopback = await register('/loopback');
    // What a name that resolved elsewhere at registration and to the metadata address later comes to.
    await t.prisma.webhookEndpoint.update({ where: { id: metadata.id }, data: { url: 'http://169.254.169.254/latest/meta-data/' } });
    await owner.test(metadata.id).expect(202);
    await owner.test(loopback.id).expect(202);
    const attempt = await eventually(async () => {
      const [d] = await deliveriesOf(metadata.id);
      expect(d.attempts).toHaveLength(1);
      return d.attempts[0];
    });
    expect(attempt).toMatchObject({
      responseStatus: null,
      error: '169.254.169.254 is a cloud metadata address: never a webhook target',
    });
    await receiver.waitFor('/loopback'); // private addresses stay allowed
  });
});

/** An endpoint failing for 5 days is disabled, audited, and its account's OWNERs and ADMINs are e-mailed. */
describe('a webhook endpoint failing for days', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let inbox: Inbox;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    inbox = await startInbox();
    t = await startApp({ WEBHOOK_ALLOW_PRIVATE: 'true', SMTP_URL: inbox.url });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
    await inbox.close();
  });

  it('is disabled after one more failure once it has failed for 5 days, and the OWNERs and ADMINs are told', async () => {
    const account = await createAccount(t);
    const admin = await account.addUser('ADMIN');
    const developer = await account.addUser('DEVELOPER');
    receiver.on('/down', (_req, res) => {
      res.statusCode = 500;
      res.end('still down');
    });
    const owner = api(t, account.owner.token);
    const hook = (await owner.create({ url: receiver.url('/down') }).expect(201)).body as { id: string };
    // Failing for a little under 5 days: one more failure is not enough.
    await t.prisma.webhookEndpoint.update({
      where: { id: hook.id },
      data: { failingSince: new Date(Date.now() - 5 * 86_400_000 + 60_000) },
    });
    await owner.test(hook.id).expect(202);
    await receiver.waitFor('/down');
    await eventually(async () =>
      expect((await t.prisma.webhookAttempt.count({ where: { delivery: { endpointId: hook.id } } })) >= 1).toBe(true),
    );
    expect((await owner.get(hook.id)).body).toMatchObject({ enabled: true });
    // Five days and more.
    await t.prisma.webhookEndpoint.update({
      where: { id: hook.id },
      data: { failingSince: new Date(Date.now() - 5 * 86_400_000 - 60_000) },
    });
    await owner.test(hook.id).expect(202);
    const disabled = await eventually(async () => {
      const e = (await owner.get(hook.id)).body as { enabled: boolean; disabledReason: string | null };
      expect(e.enabled).toBe(false);
      return e;
    });
    expect(disabled.disabledReason).toBe('failing');
    const audited = await t.prisma.auditEvent.findFirst({
      where: { accountId: account.id, action: 'webhook.disabled', targetId: hook.id },
    });
    expect(audited).toMatchObject({ actorId: null, ip: null, details: { reason: 'failing', url: receiver.url('/down') } });
    const told = await eventually(() => {
      const to = inbox.messages.filter((m) => m.subject === 'Gatehouse disabled a webhook endpoint').map((m) => m.to);
      return to.length >= 2 ? to : false;
    });
    const addresses = JSON.stringify(told);
    expect(addresses).toContain(account.owner.email);
    expect(addresses).toContain(admin.email);
    expect(addresses).not.toContain(developer.email);
    const [mail] = inbox.messages.filter((m) => m.subject === 'Gatehouse disabled a webhook endpoint');
    expect(mail.text).toContain(receiver.url('/down'));
    expect(mail.text).toContain('failed for 5 days');
  });
});

/** The events no request makes: a key's first refusal in an hour, and a key about to expire. */
describe('webhook notices', () => {
  let t: TestApp;
  let account: TestAccount;
  let receiver: WebhookReceiver;
  let secret: string;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startApp({ WEBHOOK_ALLOW_PRIVATE: 'true', WIDGET_VISITOR_PER_MINUTE: '1000' });
    account = await createAccount(t, 'free');
    secret = (
      (
        await api(t, account.owner.token)
          .create({
            url: receiver.url('/notices'),
            events: ['rate_limit.exceeded', 'api_key.expiring', 'widget.surge_started', 'widget.surge_ended'],
          })
          .expect(201)
      ).body as { secret: string }
    ).secret;
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const events = () =>
    receiver.at('/notices').map((r) => new Webhook(secret).verify(r.body, r.headers) as { type: string; data: Record<string, unknown> });

  it('sends rate_limit.exceeded for a key’s first refusal in an hour, with its counts, and not again within the hour', async () => {
    const { id, key } = await account.createKey({ name: 'Busy' });
    const ping = () => t.http.get('/api/v1/public/ping').set('X-Api-Key', key);
    const statuses = [];
    for (let i = 0; i < 70; i++) statuses.push((await ping()).status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10); // the free plan's 60 a minute
    await receiver.waitFor('/notices', 1, 15_000);
    const [event] = events().filter((e) => e.type === 'rate_limit.exceeded');
    expect(event.data).toEqual({
      apiKey: { id, name: 'Busy' },
      endpoint: 'GET /api/v1/public/ping',
      limit: 60,
      refused: expect.any(Number),
    });
    expect(event.data.refused).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 5; i++) expect((await ping()).status).toBe(429);
    await new Promise((r) => setTimeout(r, 7_000)); // more than a report interval
    expect(events().filter((e) => e.type === 'rate_limit.exceeded')).toHaveLength(1);
  });

  it('sends widget.surge_started once when a key’s challenges surge, and widget.surge_ended 2 minutes after it is over', async () => {
    const pro = await createAccount(t, 'pro');
    const hook = (
      await api(t, pro.owner.token)
        .create({ url: receiver.url('/surges'), events: ['widget.surge_started', 'widget.surge_ended'] })
        .expect(201)
    ).body as {
      secret: string;
    };
    const { id, key } = await pro.createKey({ name: 'Signup form', scopes: ['widget'] });
    // Fifty challenges at once: more than four times the usual rate (at least 10 a minute) — a surge.
    for (let i = 0; i < 50; i++) await t.http.get('/api/v1/widget/challenge').set('X-Api-Key', key).expect(200);
    const [got] = await receiver.waitFor('/surges', 1, 15_000);
    const event = new Webhook(hook.secret).verify(got.body, got.headers) as { type: string; data: { apiKey: unknown; level: number } };
    expect(event.type).toBe('widget.surge_started');
    expect(event.data.apiKey).toEqual({ id, name: 'Signup form' });
    expect(event.data.level).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 20; i++) await t.http.get('/api/v1/widget/challenge').set('X-Api-Key', key).expect(200);
    await new Promise((r) => setTimeout(r, 6_000)); // more than a report interval: the surge goes on, no second event
    expect(receiver.at('/surges')).toHaveLength(1);
    expect((await t.prisma.apiKey.findUniqueOrThrow({ where: { id } })).surgeStartedAt).not.toBeNull();
    // Three minutes on, without a raised challenge since: the surge is over.
    await t.app.get(WebhookNotices).reportSurges(new Date(Date.now() + 3 * 60_000));
    const [, ended] = await receiver.waitFor('/surges', 2);
    expect(new Webhook(hook.secret).verify(ended.body, ended.headers)).toMatchObject({
      type: 'widget.surge_ended',
      data: { apiKey: { id, name: 'Signup form' } },
    });
    expect((await t.prisma.apiKey.findUniqueOrThrow({ where: { id } })).surgeStartedAt).toBeNull();
  });

  it('sends api_key.expiring 7 days and 1 day before a key expires, once each, with the days really left', async () => {
    const notices = t.app.get(WebhookNotices);
    const soon = await account.createKey({ name: 'Three days', expiresAt: new Date(Date.now() + 3 * 86_400_000).toISOString() });
    const sooner = await account.createKey({ name: 'Half a day', expiresAt: new Date(Date.now() + 12 * 3_600_000).toISOString() });
    await account.createKey({ name: 'A month', expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString() });
    // The check runs on pg-boss's schedule, once a slot across instances.
    expect(await t.prisma.$queryRawUnsafe('SELECT name, cron FROM pgboss.schedule')).toEqual([
      { name: 'api-key-expiry', cron: '*/15 * * * *' },
    ]);
    // The schedule's own run may come a moment before this one: either way each key is claimed once.
    await notices.reportExpiringKeys();
    expect(await notices.reportExpiringKeys()).toBe(0);
    const expiring = async (n: number) => {
      await eventually(() => events().filter((e) => e.type === 'api_key.expiring').length >= n);
      return events()
        .filter((e) => e.type === 'api_key.expiring')
        .map((e) => [(e.data.apiKey as { id: string }).id, e.data.daysLeft]);
    };
    // A key made with 3 days left gets the week's notice at once, saying so.
    expect((await expiring(2)).sort()).toEqual(
      [
        [soon.id, 3],
        [sooner.id, 1],
      ].sort(),
    );
    // Two and a half days on, the first key is within a day of expiring: its second notice.
    expect(await notices.reportExpiringKeys(new Date(Date.now() + 2.5 * 86_400_000))).toBe(1);
    expect((await expiring(3)).filter(([id]) => id === soon.id)).toEqual([
      [soon.id, 3],
      [soon.id, 1],
    ]);
  });
});

/** Without WEBHOOK_ALLOW_PRIVATE a delivery never reaches a private address, whatever the URL says now. */
describe('webhook deliveries to private addresses', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('refuses at delivery an address that became loopback after registration (as DNS rebinding would make it)', async () => {
    const account = await createAccount(t);
    const owner = api(t, account.owner.token);
    const https = (await owner.create({ url: `${PUBLIC}/hook` }).expect(201)).body as { id: string };
    const http = (await owner.create({ url: `${PUBLIC}/hook2` }).expect(201)).body as { id: string };
    // What a name that resolved to a public address at registration and to 127.0.0.1 later comes to.
    const port = new URL(receiver.url('/')).port;
    await t.prisma.webhookEndpoint.update({ where: { id: https.id }, data: { url: `https://localhost:${port}/rebound` } });
    await t.prisma.webhookEndpoint.update({ where: { id: http.id }, data: { url: receiver.url('/plain') } });
    await owner.test(https.id).expect(202);
    await owner.test(http.id).expect(202);
    for (const id of [https.id, http.id]) {
      const attempt = await eventually(async () => {
        const [d] = (await owner.deliveries(id).expect(200)).body.data as {
          attempts: { responseStatus: number | null; error: string }[];
        }[];
        expect(d.attempts).toHaveLength(1);
        return d.attempts[0];
      });
      expect(attempt.responseStatus).toBeNull();
      expect(attempt.error).toMatch(/private|https only/);
    }
    expect(receiver.received).toEqual([]);
  });
});

// Two instances need one database: only on PostgreSQL.
(onRealServices ? describe : describe.skip)('webhook deliveries from two instances on one PostgreSQL', () => {
  let a: TestApp;
  let b: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    const shared = {
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WIDGET_VISITOR_PER_MINUTE: '1000',
      JWT_SECRET: randomBytes(32).toString('hex'),
      REDIS_KEY_PREFIX: `gatehouse-test:${randomUUID()}:`,
    };
    a = await startApp(shared);
    b = await startApp(shared);
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await receiver.close();
  });

  it('delivers each event once, whichever instance made it, each signed, duplicates only with the same webhook-id', async () => {
    const account = await createAccount(a);
    const hook = (
      await api(a, account.owner.token)
        .create({ url: receiver.url('/both'), events: ['api_key.created'] })
        .expect(201)
    ).body as {
      secret: string;
    };
    const names = Array.from({ length: 20 }, (_, i) => `key ${i}`);
    await Promise.all(
      names.map((name, i) =>
        (i % 2 ? a : b).http.post('/api/v1/api-keys').set('Authorization', `Bearer ${account.owner.token}`).send({ name }).expect(201),
      ),
    );
    const got = await receiver.waitFor('/both', 20, 20_000);
    const byId = new Map<string, string>();
    for (const r of got) {
      const event = new Webhook(hook.secret).verify(r.body, r.headers) as { data: { apiKey: { name: string } } };
      const seen = byId.get(r.headers['webhook-id']);
      if (seen !== undefined) expect(event.data.apiKey.name).toBe(seen); // a duplicate is the same event
      byId.set(r.headers['webhook-id'], event.data.apiKey.name);
    }
    expect([...byId.values()].sort()).toEqual([...names].sort());
  });

  /** Each key's notices as the receiver got them at `path`: key id → the distinct webhook-ids. */
  const noticesAt = (path: string, secret: string) => {
    const byKey = new Map<string, Set<string>>();
    for (const r of receiver.at(path)) {
      const event = new Webhook(secret).verify(r.body, r.headers) as { data: { apiKey: { id: string } } };
      byKey.set(event.data.apiKey.id, (byKey.get(event.data.apiKey.id) ?? new Set()).add(r.headers['webhook-id']));
    }
    return byKey;
  };

  it('sends each api_key.expiring notice once when both instances run the check at the same moment', async () => {
    const account = await createAccount(a);
    const hook = (
      await api(a, account.owner.token)
        .create({ url: receiver.url('/expiring'), events: ['api_key.expiring'] })
        .expect(201)
    ).body as { id: string; secret: string };
    const keys = await Promise.all(
      [2, 3, 4, 5, 6].map((days) =>
        account.createKey({ name: `${days} days`, expiresAt: new Date(Date.now() + days * 86_400_000).toISOString() }),
      ),
    );
    const ids = keys.map((k) => k.id).sort();
    // What pg-boss's schedule runs, on both instances at once.
    await Promise.all([a, b].map((t) => t.app.get(WebhookNotices).reportExpiringKeys()));
    const deliveries = await a.prisma.webhookDelivery.findMany({ where: { endpointId: hook.id } });
    expect(deliveries.map((d) => (d.payload as { data: { apiKey: { id: string } } }).data.apiKey.id).sort()).toEqual(ids);
    await receiver.waitFor('/expiring', keys.length);
    const got = noticesAt('/expiring', hook.secret);
    expect([...got.keys()].sort()).toEqual(ids);
    for (const webhookIds of got.values()) expect(webhookIds.size).toBe(1);
  });

  it('sends one widget.surge_started for a surge both instances see and report at the same moment', async () => {
    const account = await createAccount(a, 'pro');
    const hook = (
      await api(a, account.owner.token)
        .create({ url: receiver.url('/surge'), events: ['widget.surge_started'] })
        .expect(201)
    ).body as { id: string; secret: string };
    const { id, key } = await account.createKey({ name: 'Busy form', scopes: ['widget'] });
    const notices = [a, b].map((t) => t.app.get(WebhookNotices));
    // Their own reports every 5 seconds stop, so that each instance's report is the one below.
    for (const n of notices) n.onApplicationShutdown();
    // Fifty challenges at once on each instance: each sees its own surge.
    for (const t of [a, b]) for (let i = 0; i < 50; i++) await t.http.get('/api/v1/widget/challenge').set('X-Api-Key', key).expect(200);
    const reports = await Promise.all(notices.map((n) => n.reportSurges()));
    expect(reports.map((r) => r.noticed)).toEqual([1, 1]);
    expect(reports.reduce((sum, r) => sum + r.sent, 0)).toBe(1);
    expect(await a.prisma.webhookDelivery.count({ where: { endpointId: hook.id } })).toBe(1);
    const [got] = await receiver.waitFor('/surge');
    expect(new Webhook(hook.secret).verify(got.body, got.headers)).toMatchObject({
      type: 'widget.surge_started',
      data: { apiKey: { id, name: 'Busy form' } },
    });
    expect([...noticesAt('/surge', hook.secret).values()].map((webhookIds) => webhookIds.size)).toEqual([1]);
  });
});

// One instance restarting on its data directory: the embedded database's case (on PostgreSQL, workers poll every second).
(onRealServices ? describe.skip : describe)('a webhook retry that falls due after the embedded instance restarts', () => {
  let t: TestApp | undefined;
  let receiver: WebhookReceiver;
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-webhook-restart-'));

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    receiver.on('/flaky', (_req, res, nth) => {
      res.statusCode = nth === 1 ? 503 : 200;
      res.end();
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is sent when it falls due, not at the next poll a minute later', async () => {
    const env = { DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE: 'true', JWT_SECRET: randomBytes(32).toString('hex') };
    t = await startApp(env);
    const account = await createAccount(t);
    const owner = api(t, account.owner.token);
    const { id } = (await owner.create({ url: receiver.url('/flaky') }).expect(201)).body as { id: string };
    await owner.test(id).expect(202);
    await receiver.waitFor('/flaky');
    // The failed attempt is recorded with its retry; the retry is put off to 20 s from now, past the restart.
    await eventually(async () => expect((await owner.deliveries(id)).body.data[0].nextAttemptAt).not.toBeNull());
    await t.prisma.$executeRawUnsafe(
      `UPDATE pgboss.job SET start_after = now() + interval '20 seconds' WHERE name = 'webhook-delivery' AND state < 'active'`,
    );
    const due = Date.now() + 20_000;
    await t.close();
    t = undefined;

    t = await startApp(env);
    const [, again] = await receiver.waitFor('/flaky', 2, 40_000);
    expect(again.at).toBeGreaterThanOrEqual(due - 1_000);
    expect(again.at).toBeLessThan(due + 10_000);
  }, 90_000);
});
