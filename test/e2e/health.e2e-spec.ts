import { eventually } from '../utils/eventually';
import { startApp } from '../utils/test-app';

describe('/health', () => {
  it('separates liveness from readiness, and turns not ready first when stopping', async () => {
    const t = await startApp({ SHUTDOWN_DRAIN_MS: '1000' });
    const live = await t.http.get('/health/live').expect(200);
    expect(live.body).toEqual({ status: 'alive' });
    const ready = await t.http.get('/health/ready').expect(200);
    expect(ready.body).toEqual({ status: 'ready', draining: false, database: 'up', rateLimits: expect.stringMatching(/^(memory|redis)$/) });
    expect(ready.headers['x-ratelimit-limit']).toBeUndefined(); // outside /api/v1 and its limits

    const closing = t.close();
    await eventually(async () => {
      const draining = await t.http.get('/health/ready');
      expect({ status: draining.status, body: draining.body }).toEqual({
        status: 503,
        body: expect.objectContaining({ status: 'not_ready', draining: true }),
      });
    });
    expect((await t.http.get('/health/live')).status).toBe(200); // alive while it drains
    await closing;
  }, 60_000);
});

describe('client IP for anonymous limits', () => {
  const hit = (t: Awaited<ReturnType<typeof startApp>>, forwardedFor: string) =>
    t.http.post('/api/v1/auth/login').set('X-Forwarded-For', forwardedFor).send({ email: 'nobody@example.com', password: 'x' });

  it('ignores X-Forwarded-For unless TRUST_PROXY is set: spoofed addresses share the socket’s limit', async () => {
    const t = await startApp();
    try {
      expect((await hit(t, '203.0.113.1')).headers['x-ratelimit-remaining']).toBe('29');
      expect((await hit(t, '203.0.113.2')).headers['x-ratelimit-remaining']).toBe('28');
    } finally {
      await t.close();
    }
  }, 60_000);

  it('takes the client IP from X-Forwarded-For behind a trusted proxy', async () => {
    const t = await startApp({ TRUST_PROXY: '127.0.0.1,::1,::ffff:127.0.0.1' });
    try {
      expect((await hit(t, '203.0.113.1')).headers['x-ratelimit-remaining']).toBe('29');
      expect((await hit(t, '203.0.113.2')).headers['x-ratelimit-remaining']).toBe('29');
      expect((await hit(t, '203.0.113.1')).headers['x-ratelimit-remaining']).toBe('28');
    } finally {
      await t.close();
    }
  }, 60_000);
});
