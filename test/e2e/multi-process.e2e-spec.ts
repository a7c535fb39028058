import { randomBytes, randomUUID } from 'node:crypto';
import { AppProcess } from '../utils/app-process';
import { createAccount, onRealServices, startApp, TestApp } from '../utils/test-app';

// Several processes need one database: only on PostgreSQL + Redis.
(onRealServices ? describe : describe.skip)('two app processes on one PostgreSQL and one Redis', () => {
  let setup: TestApp;
  let instances: AppProcess[] = [];
  const shared = {
    NODE_ENV: 'production',
    DATABASE_URL: process.env.E2E_DATABASE_URL,
    REDIS_URL: process.env.E2E_REDIS_URL,
    REDIS_KEY_PREFIX: `gatehouse-test:${randomUUID()}:`,
    JWT_SECRET: randomBytes(32).toString('hex'),
    WIDGET_SECRETS: randomBytes(32).toString('hex'),
    MFA_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  };

  beforeAll(async () => {
    setup = await startApp(shared);
    instances = await Promise.all([AppProcess.start(shared), AppProcess.start(shared)]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await setup?.close();
  });

  it('enforces exactly one limit: 200 concurrent requests, the plan’s 60 allowed, 140 refused', async () => {
    const { key } = await (await createAccount(setup, 'free')).createKey();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`${instances[i % 2].url}/api/v1/public/ping`, { headers: { 'X-Api-Key': key } }).then(async (r) => ({
          status: r.status,
          limit: r.headers.get('x-ratelimit-limit'),
          remaining: Number(r.headers.get('x-ratelimit-remaining')),
          retryAfter: r.headers.get('retry-after'),
          body: (await r.json()) as { error?: string },
        })),
      ),
    );
    const allowed = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect({ allowed: allowed.length, refused: refused.length }).toEqual({ allowed: 60, refused: 140 });
    expect(answers.every((a) => a.limit === '60')).toBe(true);
    // One counter: every allowed answer saw a different remaining count, 59 down to 0.
    expect(allowed.map((a) => a.remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(refused.every((a) => a.remaining === 0 && Number(a.retryAfter) >= 1 && a.body.error === 'rate_limit_exceeded')).toBe(true);
  });

  it('answers every request in flight when SIGTERM arrives, then stops cleanly', async () => {
    const { key } = await (await createAccount(setup, 'enterprise')).createKey();
    const inFlight = Array.from({ length: 100 }, (_, i) =>
      fetch(`${instances[i % 2].url}/api/v1/public/ping`, { headers: { 'X-Api-Key': key } }).then((r) => r.status),
    );
    const endings = await Promise.all(instances.map((i) => i.stop()));
    expect(await Promise.all(inFlight)).toEqual(Array(100).fill(200));
    for (const ending of endings) expect(ending.code === 0 || ending.signal === 'SIGTERM').toBe(true);
    for (const instance of instances) expect(instance.log.join('\n')).not.toMatch(/ERROR/);
  });
});
