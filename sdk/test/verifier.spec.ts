import { GatehouseConfigurationError, GatehouseRefusedError, GatehouseVerifier, VERSION, type VerifyEvent } from '../src/index';
import { FakeVerifier } from '../src/testing';
import { apiError, FakeGatehouse, type Reply, VALID } from './fake-gatehouse';

/** Secrets as they look (the shapes test/utils/log-scan.ts hunts for in the app's logs). */
const API_KEY = 'gh_Zq3JrX8bW2mN5pL7vT1yC4hK9dF6sA0eRu9Qx1';
const NONCE = 'ghn_AW8cKzoNTk9ai2x9jp8KGyw_Kpwei31qX049LBsKn459awzJAGsMyixzaG9wLmV4YW1wbGUuY29tQV4yWT5mNXPwR524FxWPdqAqQzBLjnJeFcMpdANV7bU';

describe('GatehouseVerifier', () => {
  let gatehouse: FakeGatehouse;
  beforeAll(async () => {
    gatehouse = await FakeGatehouse.start();
  });
  afterAll(() => gatehouse.close());

  const verifier = (options: Partial<ConstructorParameters<typeof GatehouseVerifier>[0]> = {}) =>
    new GatehouseVerifier({ apiKey: API_KEY, baseUrl: gatehouse.url, timeoutMs: 1000, ...options });
  const answering = (...replies: Reply[]) => gatehouse.answer(...replies);

  describe('configuration', () => {
    it.each([
      ['no options', undefined, 'invalid_option'],
      ['no key', { baseUrl: 'https://g.example.com' }, 'missing_api_key'],
      ['an empty key', { apiKey: ' ', baseUrl: 'https://g.example.com' }, 'missing_api_key'],
      ['a key with a newline', { apiKey: `${API_KEY}\n`, baseUrl: 'https://g.example.com' }, 'invalid_option'],
      ['no baseUrl', { apiKey: API_KEY }, 'invalid_option'],
      ['a relative baseUrl', { apiKey: API_KEY, baseUrl: '/gatehouse' }, 'invalid_option'],
      ['an ftp baseUrl', { apiKey: API_KEY, baseUrl: 'ftp://g.example.com' }, 'invalid_option'],
      ['a policy that is not one', { apiKey: API_KEY, baseUrl: 'https://g.example.com', onUnavailable: 'maybe' }, 'invalid_option'],
      [
        'a hostname with a scheme',
        { apiKey: API_KEY, baseUrl: 'https://g.example.com', hostnames: ['https://shop.example.com'] },
        'invalid_option',
      ],
      ['a bare wildcard', { apiKey: API_KEY, baseUrl: 'https://g.example.com', hostnames: ['*'] }, 'invalid_option'],
      ['a negative timeout', { apiKey: API_KEY, baseUrl: 'https://g.example.com', timeoutMs: -1 }, 'invalid_option'],
    ])('refuses %s with a GatehouseConfigurationError', (_, options, code) => {
      const make = () => new GatehouseVerifier(options as never);
      expect(make).toThrow(GatehouseConfigurationError);
      expect(make).toThrow(expect.objectContaining({ code }));
    });

    it('names the missing key and the verify scope it needs', () => {
      expect(() => new GatehouseVerifier({ apiKey: undefined as never, baseUrl: 'https://g.example.com' })).toThrow(/apiKey.*verify/);
    });

    it('posts to /api/v1/nonces/verify under baseUrl, with or without a trailing /api/v1 or a path prefix', async () => {
      for (const base of [gatehouse.url, `${gatehouse.url}/`, `${gatehouse.url}/api/v1`, `${gatehouse.url}/api/v1/`]) {
        answering({ status: 200, body: VALID });
        await verifier({ baseUrl: base }).verify(NONCE);
        expect(gatehouse.received.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /api/v1/nonces/verify']);
      }
      answering({ status: 200, body: VALID });
      await verifier({ baseUrl: `${gatehouse.url}/gatehouse` }).verify(NONCE);
      expect(gatehouse.received[0].url).toBe('/gatehouse/api/v1/nonces/verify');
    });
  });

  describe('verdicts', () => {
    it('sends the nonce as JSON with the key, a User-Agent naming the SDK and its version, and an Idempotency-Key', async () => {
      answering({ status: 200, body: VALID });
      await verifier({ userAgent: 'my-shop/1.4' }).verify(NONCE);
      const [request] = gatehouse.received;
      expect(JSON.parse(request.body)).toEqual({ nonce: NONCE });
      expect(request.headers).toMatchObject({
        'x-api-key': API_KEY,
        'content-type': 'application/json',
        'idempotency-key': expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      });
      expect(request.headers['user-agent']).toMatch(
        new RegExp(`^gatehouse-verify/${VERSION.replace(/\./g, '\\.')} \\(@gatehouse/verify; node/\\d+.* my-shop/1\\.4$`),
      );
    });

    it('answers valid with issuedAt as a Date, the hostname and the effort', async () => {
      answering({ status: 200, body: VALID });
      await expect(verifier().verify(NONCE)).resolves.toEqual({
        outcome: 'valid',
        accepted: true,
        issuedAt: new Date('2026-03-01T12:00:00.000Z'),
        hostname: 'shop.example.com',
        effort: VALID.effort,
        replayed: false,
        attempts: 1,
        requestId: 'req-1',
      });
    });

    it('answers a valid nonce of before effort was recorded (effort null) and one without a page (hostname null)', async () => {
      answering({ status: 200, body: { ...VALID, hostname: null, effort: null } });
      await expect(verifier().verify(NONCE)).resolves.toMatchObject({ outcome: 'valid', accepted: true, hostname: null, effort: null });
    });

    it.each(['unknown', 'expired', 'already_used'])('answers invalid %s as Gatehouse says, without retrying', async (reason) => {
      answering({ status: 200, body: { valid: false, reason } });
      await expect(verifier({ onUnavailable: 'accept' }).verify(NONCE)).resolves.toEqual({
        outcome: 'invalid',
        accepted: false,
        reason,
        message: expect.any(String),
        attempts: 1,
        requestId: 'req-1',
      });
      expect(gatehouse.received).toHaveLength(1);
    });

    it.each([
      ['undefined', undefined, 'No nonce'],
      ['null', null, 'No nonce'],
      ['an empty string', '', 'empty'],
      ['a number', 42, 'not a string'],
      ['an array (a repeated form field)', [NONCE, NONCE], 'not a string'],
      ['an object', { nonce: NONCE }, 'not a string'],
      ['513 characters', 'g'.repeat(513), 'longer than 512'],
      ['a NUL', `${NONCE}\u0000`, 'control'],
      ['a newline', `${NONCE}\n`, 'control'],
      ['a lone surrogate', `${NONCE}\ud800`, 'Unicode'],
    ])('refuses %s as malformed without a network call, whatever the failure policy', async (_, nonce, words) => {
      answering({ status: 200, body: VALID });
      const verdict = await verifier({ onUnavailable: 'accept' }).verify(nonce);
      expect(verdict).toEqual({
        outcome: 'invalid',
        accepted: false,
        reason: 'malformed',
        message: expect.stringContaining(words),
        attempts: 0,
      });
      expect(gatehouse.received).toHaveLength(0);
    });

    it('sends a 512-character string and any other printable text: Gatehouse decides (unknown)', async () => {
      answering({ status: 200, body: { valid: false, reason: 'unknown' } });
      await expect(verifier().verify('g'.repeat(512))).resolves.toMatchObject({ reason: 'unknown' });
      await expect(verifier().verify('héllo wörld ✓')).resolves.toMatchObject({ reason: 'unknown' });
      expect(gatehouse.received).toHaveLength(2);
    });

    it('refuses a 400 as malformed, once, whatever the failure policy', async () => {
      answering(apiError(400, 'validation_failed'));
      await expect(verifier({ onUnavailable: 'accept' }).verify(NONCE)).resolves.toMatchObject({
        outcome: 'invalid',
        accepted: false,
        reason: 'malformed',
      });
      expect(gatehouse.received).toHaveLength(1);
    });
  });

  describe('configuration errors at the call', () => {
    it.each([
      [401, 'invalid_api_key', /revoked/],
      [403, 'insufficient_permissions', /`verify` scope/],
      [404, 'not_found', /baseUrl/],
    ])(
      'rejects %s with a GatehouseConfigurationError (%s), never a verdict, even when unavailability is accepted',
      async (status, code, words) => {
        answering(apiError(status, code));
        const call = verifier({ onUnavailable: 'accept' }).verify(NONCE);
        await expect(call).rejects.toThrow(GatehouseConfigurationError);
        await expect(verifier({ onUnavailable: 'accept' }).verify(NONCE)).rejects.toMatchObject({
          code,
          gatehouseStatus: status,
          message: expect.stringMatching(words),
        });
      },
    );

    it('rejects a redirect rather than follow it with the key', async () => {
      answering({ status: 301, headers: { location: 'https://elsewhere.example.com/api/v1/nonces/verify?x=1' } });
      await expect(verifier().verify(NONCE)).rejects.toMatchObject({
        code: 'invalid_option',
        message: expect.stringContaining('redirect'),
      });
    });

    it('rejects an Idempotency-Key Gatehouse would refuse, before any call', async () => {
      answering({ status: 200, body: VALID });
      for (const idempotencyKey of ['', 'x'.repeat(256), 'tab\there', 'é']) {
        await expect(verifier().verify(NONCE, { idempotencyKey })).rejects.toMatchObject({ code: 'invalid_idempotency_key' });
      }
      expect(gatehouse.received).toHaveLength(0);
    });
  });

  describe('retries that cannot burn a good nonce', () => {
    it('retries a dropped answer with the same Idempotency-Key and passes on Gatehouse’s replayed verdict', async () => {
      answering('drop', { status: 200, body: { ...VALID, replayed: true } });
      const verdict = await verifier().verify(NONCE);
      expect(verdict).toMatchObject({ outcome: 'valid', accepted: true, replayed: true, attempts: 2 });
      const keys = gatehouse.received.map((r) => r.headers['idempotency-key']);
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
    });

    it('sends each call its own Idempotency-Key, or the one it is given', async () => {
      answering({ status: 200, body: VALID });
      const v = verifier();
      await v.verify(NONCE);
      await v.verify(NONCE);
      await v.verify(NONCE, { idempotencyKey: 'order-1234' });
      const keys = gatehouse.received.map((r) => r.headers['idempotency-key']);
      expect(new Set(keys).size).toBe(3);
      expect(keys[2]).toBe('order-1234');
    });

    it('answers idempotency_key_reused when Gatehouse has the key for another nonce, never accepted', async () => {
      answering(apiError(422, 'idempotency_key_reused'));
      await expect(verifier({ onUnavailable: 'accept' }).verify(NONCE, { idempotencyKey: 'order-1234' })).resolves.toMatchObject({
        outcome: 'invalid',
        accepted: false,
        reason: 'idempotency_key_reused',
      });
      expect(gatehouse.received).toHaveLength(1);
    });

    it('retries 5xx twice, then answers unverified server, refused by default', async () => {
      answering(apiError(503, 'service_unavailable'));
      await expect(verifier().verify(NONCE)).resolves.toMatchObject({
        outcome: 'unverified',
        accepted: false,
        error: 'server',
        status: 503,
        attempts: 3,
      });
      expect(gatehouse.received).toHaveLength(3);
    });

    it('retries as many times as told', async () => {
      answering(apiError(500, 'internal_error'));
      await expect(verifier({ retries: 0 }).verify(NONCE)).resolves.toMatchObject({ error: 'server', attempts: 1 });
      expect(gatehouse.received).toHaveLength(1);
    });

    it('waits out a Retry-After within the budget, then gets the verdict', async () => {
      answering(apiError(503, 'service_unavailable', { 'retry-after': '1' }), { status: 200, body: VALID });
      await expect(verifier().verify(NONCE)).resolves.toMatchObject({ outcome: 'valid', attempts: 2 });
    });

    it('answers rate_limited at once when Retry-After is past the budget', async () => {
      answering(apiError(429, 'rate_limit_exceeded', { 'retry-after': '42' }), { status: 200, body: VALID });
      await expect(verifier().verify(NONCE)).resolves.toMatchObject({
        outcome: 'unverified',
        error: 'rate_limited',
        status: 429,
        attempts: 1,
      });
      expect(gatehouse.received).toHaveLength(1);
    });

    it('times an attempt out and retries it: a hung Gatehouse costs timeoutMs an attempt, then unverified timeout', async () => {
      answering('hang', { status: 200, body: VALID });
      await expect(verifier({ timeoutMs: 200 }).verify(NONCE)).resolves.toMatchObject({ outcome: 'valid', attempts: 2 });
      answering('hang');
      await expect(verifier({ timeoutMs: 100, retries: 1 }).verify(NONCE)).resolves.toMatchObject({
        outcome: 'unverified',
        accepted: false,
        error: 'timeout',
        attempts: 2,
      });
    });

    it('times out an answer whose body never comes', async () => {
      answering('hang-body');
      await expect(verifier({ timeoutMs: 150, retries: 0 }).verify(NONCE)).resolves.toMatchObject({
        outcome: 'unverified',
        error: 'timeout',
      });
    });

    it('stops at the total budget, however many retries are left', async () => {
      answering('hang');
      await expect(verifier({ timeoutMs: 150, totalTimeoutMs: 200, retries: 5 }).verify(NONCE)).resolves.toMatchObject({
        outcome: 'unverified',
        error: 'timeout',
      });
      expect(gatehouse.received.length).toBeLessThan(6);
    });

    it('answers unverified network when nothing listens', async () => {
      const closed = await FakeGatehouse.start();
      await closed.close();
      const verdict = await new GatehouseVerifier({ apiKey: API_KEY, baseUrl: closed.url }).verify(NONCE);
      expect(verdict).toMatchObject({
        outcome: 'unverified',
        accepted: false,
        error: 'network',
        attempts: 3,
        message: `Gatehouse could not be reached at ${closed.url}/api/v1/nonces/verify: ECONNREFUSED`,
      });
    });

    it('stops when its AbortSignal aborts: unverified aborted, never accepted', async () => {
      answering('hang');
      const controller = new AbortController();
      const call = verifier({ onUnavailable: 'accept', timeoutMs: 60_000, totalTimeoutMs: 60_000 }).verify(NONCE, {
        signal: controller.signal,
      });
      while (gatehouse.received.length === 0) await new Promise((r) => setImmediate(r));
      controller.abort();
      await expect(call).resolves.toMatchObject({ outcome: 'unverified', accepted: false, error: 'aborted', attempts: 1 });
      await expect(verifier().verify(NONCE, { signal: AbortSignal.abort() })).resolves.toMatchObject({ error: 'aborted', attempts: 0 });
    });

    describe('timers', () => {
      /** The SDK's own timers (told apart from the runtime's by their delays, which no runtime uses), and whether each was cleared. */
      const DELAYS = [31_111, 32_222, 20_000];
      let set: jest.SpyInstance;
      let clear: jest.SpyInstance;
      beforeEach(() => {
        set = jest.spyOn(globalThis, 'setTimeout');
        clear = jest.spyOn(globalThis, 'clearTimeout');
      });
      afterEach(() => jest.restoreAllMocks());
      const left = () => {
        const mine = set.mock.calls.flatMap((call, i) =>
          DELAYS.includes(call[1] as number) ? [set.mock.results[i].value as unknown] : [],
        );
        const cleared = new Set(clear.mock.calls.map((call) => call[0] as unknown));
        return { made: mine.length, left: mine.filter((h) => !cleared.has(h)).length };
      };

      it('clears the attempt’s timer once the answer is in', async () => {
        answering({ status: 200, body: VALID });
        await verifier({ timeoutMs: 31_111, totalTimeoutMs: 60_000 }).verify(NONCE);
        expect(left()).toEqual({ made: 1, left: 0 });
      });

      it('clears the attempt’s timer when the signal aborts it', async () => {
        answering('hang');
        const controller = new AbortController();
        const call = verifier({ timeoutMs: 32_222, totalTimeoutMs: 60_000 }).verify(NONCE, { signal: controller.signal });
        while (gatehouse.received.length === 0) await new Promise((r) => setImmediate(r));
        controller.abort();
        await call;
        expect(left()).toEqual({ made: 1, left: 0 });
      });

      it('clears a Retry-After wait when the signal aborts it', async () => {
        answering(apiError(503, 'service_unavailable', { 'retry-after': '20' }));
        const controller = new AbortController();
        const call = verifier({ timeoutMs: 31_111, totalTimeoutMs: 60_000 }).verify(NONCE, { signal: controller.signal });
        while (!set.mock.calls.some((c) => c[1] === 20_000)) await new Promise((r) => setImmediate(r));
        controller.abort();
        await expect(call).resolves.toMatchObject({ error: 'aborted', attempts: 1 });
        expect(left()).toEqual({ made: 2, left: 0 });
      });
    });
  });

  describe('answers that are not Gatehouse’s', () => {
    it.each([
      ['not JSON', { status: 200, raw: '<html>Welcome to nginx</html>' }],
      ['valid as a string', { status: 200, body: { ...VALID, valid: 'true' } }],
      ['valid without issuedAt', { status: 200, body: { valid: true, hostname: null, effort: null } }],
      ['valid with a bad date', { status: 200, body: { ...VALID, issuedAt: 'yesterday' } }],
      ['valid with effort of strings', { status: 200, body: { ...VALID, effort: { ...VALID.effort, cost: '1000' } } }],
      ['an array', { status: 200, body: [VALID] }],
      ['an empty body', { status: 200, raw: '' }],
      ['an unexpected status', { status: 418, body: VALID }],
    ] as Array<[string, Reply]>)(
      '%s → unverified bad_response, not retried, refused even when unavailability is accepted',
      async (_, reply) => {
        answering(reply);
        await expect(verifier({ onUnavailable: 'accept' }).verify(NONCE)).resolves.toMatchObject({
          outcome: 'unverified',
          accepted: false,
          error: 'bad_response',
        });
        expect(gatehouse.received).toHaveLength(1);
      },
    );

    it('takes valid: false with a reason it does not know as invalid (never accepted)', async () => {
      answering({ status: 200, body: { valid: false, reason: 'quantum' } });
      await expect(verifier({ onUnavailable: 'accept' }).verify(NONCE)).resolves.toMatchObject({
        outcome: 'invalid',
        accepted: false,
        reason: 'unknown',
      });
    });
  });

  describe('failure policy', () => {
    it('accepts unverified outcomes with onUnavailable: accept, marked unverified', async () => {
      answering(apiError(503, 'service_unavailable'));
      await expect(verifier({ onUnavailable: 'accept', retries: 0 }).verify(NONCE)).resolves.toMatchObject({
        outcome: 'unverified',
        accepted: true,
        error: 'server',
      });
    });

    it('asks a policy function, which sees the failure; anything but true (or a throw) refuses', async () => {
      answering(apiError(429, 'rate_limit_exceeded', { 'retry-after': '60' }));
      const seen: string[] = [];
      const policy = (v: { error: string }) => (seen.push(v.error), v.error === 'rate_limited');
      await expect(verifier({ onUnavailable: policy }).verify(NONCE)).resolves.toMatchObject({ accepted: true, error: 'rate_limited' });
      expect(seen).toEqual(['rate_limited']);
      answering(apiError(503, 'service_unavailable'));
      await expect(verifier({ onUnavailable: policy, retries: 0 }).verify(NONCE)).resolves.toMatchObject({
        accepted: false,
        error: 'server',
      });
      await expect(
        verifier({
          onUnavailable: () => {
            throw new Error('policy bug');
          },
          retries: 0,
        }).verify(NONCE),
      ).resolves.toMatchObject({ accepted: false });
      await expect(verifier({ onUnavailable: () => 'yes' as never, retries: 0 }).verify(NONCE)).resolves.toMatchObject({ accepted: false });
    });
  });

  describe('checks', () => {
    const valid = (over: Record<string, unknown> = {}) => answering({ status: 200, body: { ...VALID, ...over } });

    it.each([
      [['shop.example.com'], 'shop.example.com', true],
      [['SHOP.example.com.'], 'shop.example.com', true],
      [['*.example.com'], 'shop.example.com', true],
      [['*.example.com'], 'a.b.example.com', true],
      [['*.example.com'], 'example.com', false],
      [['*.example.com'], 'evilexample.com', false],
      [['shop.example.com'], 'shop.example.com.evil.net', false],
      [['shop.example.com'], null, false],
      [['localhost', 'shop.example.com'], 'localhost', true],
    ])('hostnames %j and a nonce of %s → accepted %s', async (hostnames, hostname, accepted) => {
      valid({ hostname });
      const verdict = await verifier({ hostnames }).verify(NONCE);
      expect(verdict.accepted).toBe(accepted);
      if (!accepted) expect(verdict).toMatchObject({ outcome: 'invalid', reason: 'hostname_mismatch', facts: { hostname } });
    });

    it('refuses a proof solved implausibly fast with minSolveRatio, above the floor only; effort null passes', async () => {
      const effort = (expectedSolveMs: number, solveMs: number) => ({ ...VALID.effort, expectedSolveMs, solveMs });
      valid({ effort: effort(2000, 150) });
      await expect(verifier({ minSolveRatio: 0.1 }).verify(NONCE)).resolves.toMatchObject({ outcome: 'invalid', reason: 'effort_too_low' });
      valid({ effort: effort(2000, 250) });
      await expect(verifier({ minSolveRatio: 0.1 }).verify(NONCE)).resolves.toMatchObject({ outcome: 'valid' });
      valid({ effort: effort(200, 5) }); // too quick a challenge to judge by default
      await expect(verifier({ minSolveRatio: 0.1 }).verify(NONCE)).resolves.toMatchObject({ outcome: 'valid' });
      await expect(verifier({ minSolveRatio: 0.1, minSolveRatioFloorMs: 100 }).verify(NONCE)).resolves.toMatchObject({
        reason: 'effort_too_low',
      });
      valid({ effort: null });
      await expect(verifier({ minSolveRatio: 0.1, minCost: 5000 }).verify(NONCE)).resolves.toMatchObject({ outcome: 'valid' });
    });

    it('refuses a cost below minCost', async () => {
      valid();
      await expect(verifier({ minCost: 5000 }).verify(NONCE)).resolves.toMatchObject({ outcome: 'invalid', reason: 'effort_too_low' });
      await expect(verifier({ minCost: 1000 }).verify(NONCE)).resolves.toMatchObject({ outcome: 'valid' });
    });

    it('accepts only surge-level proofs with requireSurge', async () => {
      valid({ effort: { ...VALID.effort, surge: false } });
      await expect(verifier({ requireSurge: true }).verify(NONCE)).resolves.toMatchObject({ outcome: 'invalid', reason: 'effort_too_low' });
      await expect(verifier({}).verify(NONCE)).resolves.toMatchObject({ outcome: 'valid' });
      valid({ effort: { ...VALID.effort, surge: true } });
      await expect(verifier({ requireSurge: true }).verify(NONCE)).resolves.toMatchObject({ outcome: 'valid' });
      valid({ effort: null });
      await expect(verifier({ requireSurge: true }).verify(NONCE)).resolves.toMatchObject({ outcome: 'invalid', reason: 'effort_too_low' });
      expect(() => verifier({ requireSurge: 'yes' as unknown as boolean })).toThrow(/requireSurge/);
    });

    it('refuses a nonce issued longer ago than maxAgeMs', async () => {
      valid({ issuedAt: new Date(Date.now() - 120_000).toISOString() });
      await expect(verifier({ maxAgeMs: 60_000 }).verify(NONCE)).resolves.toMatchObject({ outcome: 'invalid', reason: 'too_old' });
      await expect(verifier({ maxAgeMs: 600_000 }).verify(NONCE)).resolves.toMatchObject({ outcome: 'valid' });
    });

    it('lets one call override the verifier’s checks', async () => {
      valid({ hostname: 'admin.example.com' });
      const v = verifier({ hostnames: ['shop.example.com'] });
      await expect(v.verify(NONCE)).resolves.toMatchObject({ reason: 'hostname_mismatch' });
      await expect(v.verify(NONCE, { hostnames: ['admin.example.com'] })).resolves.toMatchObject({ outcome: 'valid' });
    });
  });

  describe('verifyOrThrow', () => {
    it('answers the accepted verdict, throws GatehouseRefusedError with the refused one, passes configuration errors on', async () => {
      answering({ status: 200, body: VALID });
      await expect(verifier().verifyOrThrow(NONCE)).resolves.toMatchObject({ outcome: 'valid' });
      answering({ status: 200, body: { valid: false, reason: 'already_used' } });
      const refused = await verifier()
        .verifyOrThrow(NONCE)
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(GatehouseRefusedError);
      expect(refused).toMatchObject({ code: 'already_used', verdict: { outcome: 'invalid', reason: 'already_used' } });
      answering(apiError(403, 'insufficient_permissions'));
      await expect(verifier().verifyOrThrow(NONCE)).rejects.toBeInstanceOf(GatehouseConfigurationError);
    });
  });

  describe('observability without secrets', () => {
    it('tells onVerify the outcome, latency and attempts; a throwing hook changes nothing', async () => {
      const events: VerifyEvent[] = [];
      answering('drop', { status: 200, body: VALID });
      const v = verifier({
        onVerify: (e) => {
          events.push(e);
          throw new Error('hook bug');
        },
      });
      await expect(v.verify(NONCE)).resolves.toMatchObject({ outcome: 'valid' });
      await v.verify('');
      expect(events).toEqual([
        { outcome: 'valid', accepted: true, latencyMs: expect.any(Number), attempts: 2, replayed: false, requestId: 'req-2' },
        { outcome: 'invalid', accepted: false, reason: 'malformed', latencyMs: expect.any(Number), attempts: 0 },
      ]);
    });

    it('never puts the nonce or the key in a verdict, an event or an error, whatever goes wrong', async () => {
      const closed = await FakeGatehouse.start();
      await closed.close();
      const seen: unknown[] = [];
      const record = (x: unknown) => seen.push(x instanceof Error ? { ...x, message: x.message, stack: x.stack } : x);
      const scenarios: Reply[][] = [
        [{ status: 200, body: VALID }],
        [{ status: 200, body: { valid: false, reason: 'already_used' } }],
        [apiError(400, 'validation_failed')],
        [apiError(401, 'invalid_api_key')],
        [apiError(403, 'insufficient_permissions')],
        [apiError(404, 'not_found')],
        [apiError(422, 'idempotency_key_reused')],
        [apiError(503, 'service_unavailable')],
        [{ status: 200, raw: `{"echo":"${NONCE}"` }],
        ['hang'],
        ['drop'],
        [{ status: 302, headers: { location: `https://x.example.com/?nonce=${NONCE}` } }],
      ];
      for (const replies of scenarios) {
        answering(...replies);
        const v = verifier({ timeoutMs: 100, retries: 1, hostnames: ['other.example.com'], onVerify: record });
        await v.verify(NONCE).then(record, record);
        await v.verifyOrThrow(NONCE).then(record, record);
      }
      await new GatehouseVerifier({ apiKey: API_KEY, baseUrl: closed.url, retries: 0, onVerify: record })
        .verify(NONCE)
        .then(record, record);
      try {
        new GatehouseVerifier({ apiKey: `${API_KEY} x`, baseUrl: gatehouse.url });
      } catch (e) {
        record(e);
      }
      expect(seen.length).toBeGreaterThan(40);
      const text = JSON.stringify(seen);
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(NONCE);
      expect(text).not.toMatch(/gh_[0-9A-Za-z]{38}|ghn_[A-Za-z0-9_-]{43,}/);
    });
  });
});

describe('FakeVerifier (@gatehouse/verify/testing)', () => {
  it('issues nonces valid once, then already_used; anything else unknown; malformed refused unasked', async () => {
    const fake = new FakeVerifier({ hostname: 'shop.example.com' });
    const nonce = fake.issueNonce();
    await expect(fake.verify(nonce)).resolves.toMatchObject({ outcome: 'valid', accepted: true, hostname: 'shop.example.com' });
    await expect(fake.verify(nonce)).resolves.toMatchObject({ outcome: 'invalid', reason: 'already_used' });
    await expect(fake.verify('ghn_made_up')).resolves.toMatchObject({ outcome: 'invalid', reason: 'unknown' });
    await expect(fake.verify('')).resolves.toMatchObject({ outcome: 'invalid', reason: 'malformed' });
    expect(fake.verified).toEqual([nonce, nonce, 'ghn_made_up']);
  });

  it('answers a fixed verdict and applies the same checks and failure policy as the real one', async () => {
    await expect(new FakeVerifier({ answer: 'expired' }).verify('anything')).resolves.toMatchObject({ reason: 'expired' });
    await expect(new FakeVerifier({ answer: 'unavailable' }).verify('anything')).resolves.toMatchObject({
      outcome: 'unverified',
      accepted: false,
    });
    await expect(new FakeVerifier({ answer: 'unavailable', onUnavailable: 'accept' }).verify('x')).resolves.toMatchObject({
      accepted: true,
    });
    const fake = new FakeVerifier({ hostnames: ['shop.example.com'] });
    await expect(fake.verify(fake.issueNonce({ hostname: 'evil.example.net' }))).resolves.toMatchObject({ reason: 'hostname_mismatch' });
    await expect(fake.verifyOrThrow(fake.issueNonce({ hostname: 'shop.example.com' }))).resolves.toMatchObject({ outcome: 'valid' });
  });
});
