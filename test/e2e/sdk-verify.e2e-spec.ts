import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatehouseConfigurationError, GatehouseVerifier, type VerifyEvent } from '../../sdk/src/index';
import { type AdapterWorld, describeAdapterBehaviour } from '../../sdk/test/adapter-behaviour';
import { FRAMEWORKS } from '../../sdk/test/frameworks';
import { createAccount, startApp, type TestAccount, type TestApp } from '../utils/test-app';
import { issueNonce } from '../utils/widget';

const PAGE = 'https://shop.example.com';

/**
 * @gatehouse/verify (sdk/) against the real app: its verdicts, configuration errors, retries made
 * safe by Idempotency-Key, test keys, and every framework's middleware (the suite the unit tests run
 * on the fake verifier) with nonces the widget's way.
 */
describe('@gatehouse/verify against Gatehouse', () => {
  let t: TestApp;
  let base: string;
  let account: TestAccount;
  let widgetKey: string;
  let verifyKey: string;
  let closed = false;

  beforeAll(async () => {
    // Some 40 nonces a minute from one visitor: over the widget's per-visitor limit, which is not what is tested here.
    t = await startApp({ WIDGET_VISITOR_PER_MINUTE: '1000' });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    account = await createAccount(t, 'pro');
    widgetKey = (await account.createKey({ scopes: ['widget'] })).key;
    verifyKey = (await account.createKey({ scopes: ['verify'] })).key;
  }, 60_000);
  afterAll(() => (closed ? undefined : t.close()));

  const verifier = (options: Partial<ConstructorParameters<typeof GatehouseVerifier>[0]> = {}) =>
    new GatehouseVerifier({ apiKey: verifyKey, baseUrl: base, ...options });
  /** A nonce as the widget gets one on `origin` (none: as a script would, without an Origin). */
  const nonce = async (origin: string | null = PAGE) => (await issueNonce(t, widgetKey, origin ?? undefined)).nonce;

  it('answers valid once, with the page’s hostname and the effort, then already_used; a made-up nonce unknown', async () => {
    const events: VerifyEvent[] = [];
    const v = verifier({ hostnames: ['*.example.com'], onVerify: (e) => events.push(e) });
    const n = await nonce();
    const first = await v.verify(n);
    expect(first).toEqual({
      outcome: 'valid',
      accepted: true,
      issuedAt: expect.any(Date),
      hostname: 'shop.example.com',
      effort: {
        algorithm: 'PBKDF2/SHA-256',
        cost: expect.any(Number),
        expectedSolveMs: expect.any(Number),
        solveMs: expect.any(Number),
        surge: false,
      },
      replayed: false,
      attempts: 1,
      requestId: expect.any(String),
    });
    expect(Math.abs(Date.now() - (first as { issuedAt: Date }).issuedAt.getTime())).toBeLessThan(60_000);
    await expect(v.verify(n)).resolves.toMatchObject({ outcome: 'invalid', accepted: false, reason: 'already_used' });
    await expect(v.verify('ghn_made_up')).resolves.toMatchObject({ outcome: 'invalid', reason: 'unknown' });
    await expect(v.verify('')).resolves.toMatchObject({ outcome: 'invalid', reason: 'malformed', attempts: 0 });
    expect(events.map((e) => [e.outcome, e.reason ?? null, e.attempts])).toEqual([
      ['valid', null, 1],
      ['invalid', 'already_used', 1],
      ['invalid', 'unknown', 1],
      ['invalid', 'malformed', 0],
    ]);
  });

  it('refuses a nonce of another page, or of none, when told the hostnames — and that used it up', async () => {
    const elsewhere = await nonce('https://evil.example.net');
    await expect(verifier({ hostnames: ['shop.example.com'] }).verify(elsewhere)).resolves.toMatchObject({
      outcome: 'invalid',
      reason: 'hostname_mismatch',
      facts: { hostname: 'evil.example.net' },
    });
    await expect(verifier().verify(elsewhere)).resolves.toMatchObject({ reason: 'already_used' });
    await expect(verifier({ hostnames: ['shop.example.com'] }).verify(await nonce(null))).resolves.toMatchObject({
      reason: 'hostname_mismatch',
      facts: { hostname: null },
    });
  });

  it('throws a configuration error naming the verify scope for a widget key, and one for a revoked key; never a verdict', async () => {
    const n = await nonce();
    const wrongScope = new GatehouseVerifier({ apiKey: widgetKey, baseUrl: base, onUnavailable: 'accept' });
    const err = await wrongScope.verify(n).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatehouseConfigurationError);
    expect(err).toMatchObject({
      code: 'insufficient_permissions',
      gatehouseStatus: 403,
      message: expect.stringContaining('`verify` scope'),
    });
    expect(String((err as Error).message)).not.toContain(widgetKey);
    const revoked = await account.createKey({ scopes: ['verify'] });
    await t.http.delete(`/api/v1/api-keys/${revoked.id}`).set('Authorization', `Bearer ${account.owner.token}`).expect(200);
    await expect(new GatehouseVerifier({ apiKey: revoked.key, baseUrl: base }).verify(n)).rejects.toMatchObject({
      code: 'invalid_api_key',
      gatehouseStatus: 401,
    });
    // Neither call used the nonce up.
    await expect(verifier().verify(n)).resolves.toMatchObject({ outcome: 'valid' });
  });

  describe('retries with one Idempotency-Key', () => {
    let proxy: Server;
    let proxied: string;
    let drops = 0;
    const keys: string[] = [];
    beforeAll(async () => {
      // Forwards each request to Gatehouse; while `drops` > 0, waits for Gatehouse's answer and then drops the connection.
      proxy = createServer((req, res) => {
        void (async () => {
          const chunks: Buffer[] = [];
          for await (const c of req) chunks.push(c as Buffer);
          keys.push(String(req.headers['idempotency-key']));
          const headers = Object.fromEntries(
            Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
          ) as Record<string, string>;
          const upstream = await fetch(`${base}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) });
          const text = await upstream.text();
          if (drops > 0) {
            drops--;
            return void req.socket.destroy();
          }
          res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' });
          res.end(text);
        })();
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      proxied = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

    it('gets valid (replayed) on the retry after Gatehouse used the nonce and the answer was lost', async () => {
      const n = await nonce();
      drops = 1;
      keys.length = 0;
      const verdict = await verifier({ baseUrl: proxied }).verify(n);
      expect(verdict).toMatchObject({ outcome: 'valid', accepted: true, replayed: true, attempts: 2, hostname: 'shop.example.com' });
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
      // The nonce is used all the same: another call (another key) is refused.
      await expect(verifier().verify(n)).resolves.toMatchObject({ reason: 'already_used' });
    });

    it('answers idempotency_key_reused for one key with two nonces; a bad key is refused before any call', async () => {
      const v = verifier();
      await expect(v.verify(await nonce(), { idempotencyKey: 'order-42' })).resolves.toMatchObject({ outcome: 'valid' });
      await expect(v.verify(await nonce(), { idempotencyKey: 'order-42' })).resolves.toMatchObject({
        outcome: 'invalid',
        accepted: false,
        reason: 'idempotency_key_reused',
      });
      await expect(v.verify(await nonce(), { idempotencyKey: 'é' })).rejects.toMatchObject({ code: 'invalid_idempotency_key' });
    });
  });

  it('answers each test key’s verdict whatever the nonce; unavailable is unverified, refused unless the policy accepts it', async () => {
    const testKey = async (testVerdict: string) => (await account.createKey({ scopes: ['verify'], testVerdict })).key;
    const valid = new GatehouseVerifier({ apiKey: await testKey('valid'), baseUrl: base });
    await expect(valid.verify('ghn_anything_at_all')).resolves.toMatchObject({ outcome: 'valid', accepted: true });
    await expect(valid.verify('ghn_anything_at_all')).resolves.toMatchObject({ outcome: 'valid', accepted: true });
    for (const reason of ['unknown', 'expired', 'already_used']) {
      const v = new GatehouseVerifier({ apiKey: await testKey(reason), baseUrl: base });
      await expect(v.verify('ghn_x')).resolves.toMatchObject({ outcome: 'invalid', reason });
    }
    const unavailableKey = await testKey('unavailable');
    const strict = new GatehouseVerifier({ apiKey: unavailableKey, baseUrl: base, retries: 1 });
    await expect(strict.verify('ghn_x')).resolves.toMatchObject({
      outcome: 'unverified',
      accepted: false,
      error: 'server',
      status: 503,
      attempts: 2,
    });
    const lenient = new GatehouseVerifier({ apiKey: unavailableKey, baseUrl: base, retries: 0, onUnavailable: 'accept' });
    await expect(lenient.verify('ghn_x')).resolves.toMatchObject({ outcome: 'unverified', accepted: true });
    // Malformed stays malformed, test key or not: it never reaches Gatehouse.
    await expect(valid.verify('')).resolves.toMatchObject({ outcome: 'invalid', reason: 'malformed' });
  });

  const world: AdapterWorld = {
    verifier: () => verifier(),
    freshNonce: () => nonce(),
    hostname: 'shop.example.com',
    unavailable: (options) => new GatehouseVerifier({ apiKey: verifyKey, baseUrl: 'http://127.0.0.1:9', retries: 0, ...options }),
    wrongScope: () => new GatehouseVerifier({ apiKey: widgetKey, baseUrl: base }),
  };
  for (const [name, mount] of Object.entries(FRAMEWORKS)) describeAdapterBehaviour(name, mount, () => world);

  it('answers unverified network once Gatehouse is stopped, refused under the default policy', async () => {
    const v = verifier({ retries: 1 });
    const n = await nonce();
    await t.close();
    closed = true;
    await expect(v.verify(n)).resolves.toMatchObject({ outcome: 'unverified', accepted: false, error: 'network', attempts: 2 });
  });
});
