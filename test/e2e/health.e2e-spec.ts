import { once } from 'node:events';
import { AddressInfo, connect } from 'node:net';
import { eventually } from '../utils/eventually';
import { startApp } from '../utils/test-app';
import { Lifecycle } from '../../src/health/lifecycle.service';

/** The app listening on a port of its own, and one raw connection to it (for requests a client library would not send). */
async function listeningWithConnection() {
  const t = await startApp();
  await t.app.listen(0, '127.0.0.1');
  const server = t.app.getHttpServer();
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(socket, 'connect');
  return { t, server, socket };
}

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

  it('refuses a request that arrives while the server closes in the documented body, with X-Request-Id, Retry-After and limits', async () => {
    const { t, server, socket } = await listeningWithConnection();
    // A connection whose request has begun is not idle: closing the server leaves it open.
    socket.write('GET /api/v1/auth/me HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: late-request\r\n');
    let raw = '';
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    const ended = once(socket, 'end');

    const closing = t.close();
    await eventually(() => !server.listening);
    socket.write('\r\n');
    await ended;
    await closing;

    const [head, body] = raw.split('\r\n\r\n');
    const [status, ...lines] = head.split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    expect(status).toBe('HTTP/1.1 503 Service Unavailable');
    expect(JSON.parse(body)).toEqual({
      statusCode: 503,
      error: 'service_unavailable',
      message: 'This instance is shutting down; retry the request.',
      requestId: 'late-request',
    });
    expect(headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': 'late-request',
      'retry-after': '1',
      connection: 'close',
      // Refused before its credentials are read: counted, like an unknown route, per client IP.
      'x-ratelimit-limit': '30',
      'x-ratelimit-remaining': '29',
      'x-ratelimit-reset': expect.any(String),
    });
  }, 60_000);
  it('answers a request that was in flight when the stop began with Connection: close, so the stop does not wait on its socket', async () => {
    const { t, server, socket } = await listeningWithConnection();
    // Headers complete and the body half sent: the request has passed onRequest before the stop
    // begins, and is answered after it, on a keep-alive connection.
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'not-the-password' });
    const arrived = once(server, 'request'); // after Fastify's own listener: its onRequest hooks have run
    socket.write(
      `POST /api/v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    let raw = '';
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    const ended = once(socket, 'end');
    await arrived;

    const closing = t.close();
    await eventually(() => expect(t.app.get(Lifecycle).isDraining).toBe(true));
    socket.write(body.slice(10));
    await eventually(() => expect(raw).toContain('\r\n\r\n{'));

    const [head] = raw.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
    expect(head.toLowerCase()).toContain('\r\nconnection: close');
    await ended; // the server ends the connection: the stop is not held for the keep-alive timeout
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
  it('with a hop count, takes the address the proxy appended, not what the client wrote before it', async () => {
    const t = await startApp({ TRUST_PROXY: '1' });
    try {
      expect((await hit(t, '198.51.100.7, 203.0.113.1')).headers['x-ratelimit-remaining']).toBe('29');
      expect((await hit(t, '198.51.100.8, 203.0.113.1')).headers['x-ratelimit-remaining']).toBe('28');
      expect((await hit(t, '198.51.100.7, 203.0.113.2')).headers['x-ratelimit-remaining']).toBe('29');
    } finally {
      await t.close();
    }
  }, 60_000);
});
