import { randomUUID } from 'node:crypto';
import { createAccount, expectError, expectRateLimitHeaders, startApp, TestAccount, TestApp } from '../utils/test-app';

/** The docs/EXTENDING.md example module. Its 401s and 403s come from the shared suite (security.e2e-spec.ts). */
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

  const as = (token: string) => ({
    list: () => t.http.get('/api/v1/webhooks').set('Authorization', `Bearer ${token}`),
    create: (body: object) => t.http.post('/api/v1/webhooks').set('Authorization', `Bearer ${token}`).send(body),
    remove: (id: string) => t.http.delete(`/api/v1/webhooks/${id}`).set('Authorization', `Bearer ${token}`),
  });

  it('creates, lists (newest first) and deletes an endpoint', async () => {
    const owner = as(account.owner.token);
    const first = await owner.create({ url: 'https://shop.example.com/hooks/a' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(String),
      url: 'https://shop.example.com/hooks/a',
      description: null,
      createdAt: expect.any(String),
    });
    expectRateLimitHeaders(first);
    const second = (await owner.create({ url: 'https://shop.example.com/hooks/b', description: 'Orders' }).expect(201)).body;

    const list = await owner.list().expect(200);
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([second.id, first.body.id]);

    await owner.remove(first.body.id).expect(204);
    expect((await owner.list()).body.data.map((w: { id: string }) => w.id)).toEqual([second.id]);
    expectError(await owner.remove(first.body.id), 404, 'not_found');
  });

  it.each(['ADMIN', 'DEVELOPER'] as const)('lets a %s manage endpoints', async (role) => {
    const user = as((await account.addUser(role)).token);
    const { id } = (await user.create({ url: 'https://hooks.example.com/x' }).expect(201)).body;
    await user.list().expect(200);
    await user.remove(id).expect(204);
  });

  it("keeps accounts apart: another account's endpoint is absent", async () => {
    const { id } = (await as(account.owner.token).create({ url: 'https://shop.example.com/private' }).expect(201)).body;
    const stranger = as(other.owner.token);
    expect((await stranger.list().expect(200)).body.data).toEqual([]);
    expectError(await stranger.remove(id), 404, 'not_found');
    expect((await as(account.owner.token).list()).body.data.map((w: { id: string }) => w.id)).toContain(id);
  });

  it.each([
    [{ url: 'http://shop.example.com/hook' }, 'url'],
    [{ url: 'https://user:pw@shop.example.com/hook' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ url: `https://shop.example.com/${'a'.repeat(2048)}` }, 'url'],
    [{}, 'url'],
    [{ url: 'https://shop.example.com/hook', description: '' }, 'description'],
    [{ url: 'https://shop.example.com/hook', secret: 'x' }, 'secret'],
  ])('answers 400 validation_failed for %j', async (body, field) => {
    const res = await as(account.owner.token).create(body);
    expectError(res, 400, 'validation_failed');
    expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });

  it('answers 400 for a malformed id and 404 for an unknown one', async () => {
    expectError(await as(account.owner.token).remove('nope'), 400, 'validation_failed');
    expectError(await as(account.owner.token).remove(randomUUID()), 404, 'not_found');
  });
});
