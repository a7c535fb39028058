import { randomUUID } from 'node:crypto';
import { createAccount, expectError, expectRateLimitHeaders, startApp, TestAccount, TestApp } from '../utils/test-app';
import { issueNonce } from '../utils/widget';

describe('DELETE /api/v1/account', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  }, 60_000);
  afterAll(() => t.close());

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const nameOf = async (a: TestAccount) => (await t.prisma.account.findUniqueOrThrow({ where: { id: a.id } })).name;
  const del = (token: string, confirm: unknown) => t.http.delete('/api/v1/account').set(bearer(token)).send({ confirm });

  /** An account in use: members, keys (one rotated with a grace period), an invitation, a nonce, usage, a webhook. */
  async function busyAccount() {
    const account = await createAccount(t);
    const developer = await account.addUser('DEVELOPER');
    const widget = await account.createKey({ scopes: ['widget', 'verify'] });
    const rotated = await account.createKey();
    const renewed = await t.http
      .post(`/api/v1/api-keys/${rotated.id}/rotate`)
      .set(bearer(account.owner.token))
      .send({ gracePeriodSeconds: 3600 });
    const invitation = await t.http
      .post('/api/v1/team/invitations')
      .set(bearer(account.owner.token))
      .send({ email: `joiner-${randomUUID()}@example.com`, role: 'ANALYST' });
    const { nonce } = await issueNonce(t, widget.key);
    await t.http.post('/api/v1/webhooks').set(bearer(account.owner.token)).send({ url: 'https://93.184.215.14/x' }).expect(201);
    await t.http.get('/api/v1/analytics/usage').query({ groupBy: 'endpoint' }).set(bearer(account.owner.token)).expect(200); // writes usage
    return {
      account,
      developer,
      widget,
      oldSecret: rotated.key,
      newSecret: renewed.body.key as string,
      invitation: invitation.body,
      nonce,
    };
  }

  it('refuses a wrong confirmation with 400 and changes nothing', async () => {
    const { account, widget } = await busyAccount();
    const name = await nameOf(account);
    for (const confirm of [name.toUpperCase(), `${name} `, '', 'Acme']) {
      const res = await del(account.owner.token, confirm);
      expectError(res, 400, 'validation_failed');
      expectRateLimitHeaders(res);
    }
    expectError(await t.http.delete('/api/v1/account').set(bearer(account.owner.token)).send({}), 400, 'validation_failed');
    await t.http.get('/api/v1/widget/config').set('X-Api-Key', widget.key).expect(200);
    expect(await t.prisma.account.count({ where: { id: account.id } })).toBe(1);
    expect(await t.prisma.deletedAccount.count({ where: { id: account.id } })).toBe(0);
  });

  it('is the OWNER’s alone: an ADMIN gets 403 and changes nothing', async () => {
    const { account } = await busyAccount();
    const admin = await account.addUser('ADMIN');
    expectError(await del(admin.token, await nameOf(account)), 403, 'insufficient_permissions');
    expect(await t.prisma.account.count({ where: { id: account.id } })).toBe(1);
  });

  it('stops every key, token and invitation at once and purges the data; a record of the deletion stays, without secrets', async () => {
    const busy = await busyAccount();
    const { account } = busy;
    const name = await nameOf(account);
    const other = await createAccount(t);
    const otherKey = await other.createKey();

    const res = await del(account.owner.token, name);
    expect(res.status).toBe(204);
    expectRateLimitHeaders(res);

    for (const key of [busy.widget.key, busy.oldSecret, busy.newSecret]) {
      expectError(await t.http.get('/api/v1/widget/config').set('X-Api-Key', key), 401, 'invalid_api_key');
    }
    for (const token of [account.owner.token, busy.developer.token]) {
      expectError(await t.http.get('/api/v1/auth/me').set(bearer(token)), 401, 'invalid_token');
    }
    const accept = await t.http
      .post('/api/v1/auth/invitations/accept')
      .send({ token: busy.invitation.token, password: 'a long enough passphrase' });
    expectError(accept, 401, 'invalid_credentials');
    const login = await t.http.post('/api/v1/auth/login').send({ email: account.owner.email, password: account.owner.password });
    expectError(login, 401, 'invalid_credentials');

    const where = { accountId: account.id };
    expect({
      account: await t.prisma.account.count({ where: { id: account.id } }),
      users: await t.prisma.user.count({ where }),
      keys: await t.prisma.apiKey.count({ where }),
      invitations: await t.prisma.invitation.count({ where }),
      nonces: await t.prisma.nonce.count({ where }),
      audit: await t.prisma.auditEvent.count({ where }),
      usage: await t.prisma.usageCounter.count({ where }),
      webhooks: await t.prisma.webhookEndpoint.count({ where }),
    }).toEqual({ account: 0, users: 0, keys: 0, invitations: 0, nonces: 0, audit: 0, usage: 0, webhooks: 0 });
    // Counts still pending in memory when it was deleted are not written back.
    await t.app.get((await import('../../src/usage/usage.recorder')).UsageRecorder).flush();
    expect(await t.prisma.usageCounter.count({ where })).toBe(0);

    const record = await t.prisma.deletedAccount.findUniqueOrThrow({ where: { id: account.id } });
    expect(record).toMatchObject({
      name,
      deletedById: account.owner.id,
      deletedByEmail: account.owner.email,
      requestId: res.headers['x-request-id'],
    });
    expect(record.purged).toMatchObject({ users: 2, apiKeys: 2, invitations: 1, webhooks: 1 });
    const text = JSON.stringify(record);
    for (const secret of [busy.widget.key, busy.oldSecret, busy.newSecret, busy.invitation.token, account.owner.token, busy.nonce]) {
      expect(text).not.toContain(secret);
    }

    await t.http.get('/api/v1/public/ping').set('X-Api-Key', otherKey.key).expect(200); // other accounts go on
    await t.http.get('/api/v1/auth/me').set(bearer(other.owner.token)).expect(200);
  });
});
