import { randomBytes, randomUUID } from 'node:crypto';
import { eventually } from '../utils/eventually';
import { PrivateRedis } from '../utils/private-redis';
import { createAccount, onRealServices, startApp, TestAccount, TestApp } from '../utils/test-app';

/**
 * Revocations reach the other instance through PostgreSQL (LISTEN/NOTIFY) when Redis is down. The
 * caches' own refresh re-reads an entry 15–30 s after its load, so a change seen on the other
 * instance within the few seconds `eventually` waits came through a message.
 */
(onRealServices ? describe : describe.skip)('two instances on one PostgreSQL while their Redis is stopped', () => {
  let redis: PrivateRedis;
  let a: TestApp;
  let b: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    const shared = {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: `gatehouse-test:${randomUUID()}:`,
      JWT_SECRET: randomBytes(32).toString('hex'),
      WIDGET_SECRETS: randomBytes(32).toString('hex'),
    };
    a = await startApp(shared);
    b = await startApp(shared);
    account = await createAccount(a);
    await redis.kill();
  }, 60_000);
  afterAll(async () => {
    await a.close();
    await b.close();
    await redis.kill();
  });

  const ping = (t: TestApp, key: string) => t.http.get('/api/v1/public/ping').set('X-Api-Key', key);
  const me = (t: TestApp, token: string) => t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${token}`);
  const soon = { timeoutMs: 5_000 };

  it('refuses a key on the other instance right after it is revoked on one', async () => {
    const { id, key } = await account.createKey();
    await ping(b, key).expect(200); // b caches the key
    await a.http.delete(`/api/v1/api-keys/${id}`).set('Authorization', `Bearer ${account.owner.token}`).expect(200);
    await eventually(async () => expect((await ping(b, key)).status).toBe(401), soon);
  });

  it('refuses a removed member’s token on the other instance', async () => {
    const member = await account.addUser('DEVELOPER');
    await me(b, member.token).expect(200); // b caches the user
    await a.http.delete(`/api/v1/team/members/${member.id}`).set('Authorization', `Bearer ${account.owner.token}`).expect(204);
    await eventually(async () => expect((await me(b, member.token)).status).toBe(401), soon);
  });
});
