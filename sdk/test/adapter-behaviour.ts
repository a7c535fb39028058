import type { MiddlewareOptions } from '../src/adapters/common';
import type { NonceVerifier } from '../src/types';
import type { Mount, Mounted } from './frameworks';

/** What the shared suite runs against: fresh nonces, and verifiers for each situation (fake in unit tests, the real app in e2e). */
export interface AdapterWorld {
  /** A verifier that checks nonces, and a fresh nonce it will find valid once (issued on `hostname`). */
  verifier(): NonceVerifier;
  freshNonce(): Promise<string>;
  readonly hostname: string | null;
  /** A verifier that cannot reach Gatehouse (unverified). */
  unavailable(options?: { onUnavailable?: 'accept' }): NonceVerifier;
  /** A verifier whose key Gatehouse refuses for verify (403: a configuration error). */
  wrongScope(): NonceVerifier;
  /** What the verifier was asked, when the world can tell (the fake's record); undefined otherwise. */
  asked?(): readonly string[];
}

const FIELD = 'gatehouse-nonce';

async function post(url: string, body: Record<string, unknown>, as: 'json' | 'form' = 'json') {
  const res = await fetch(`${url}/signup`, {
    method: 'POST',
    headers: { 'content-type': as === 'json' ? 'application/json' : 'application/x-www-form-urlencoded' },
    body: as === 'json' ? JSON.stringify(body) : new URLSearchParams(body as Record<string, string>).toString(),
  });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  // A framework's default error page may be HTML (Express's).
  return { status: res.status, type, body: (type.includes('json') ? JSON.parse(text) : { text }) as Record<string, unknown> };
}

const problem = (extra: Record<string, unknown>) => ({
  status: 403,
  type: 'application/problem+json',
  body: { type: 'about:blank', title: 'Forbidden', status: 403, detail: expect.any(String), ...extra },
});

/**
 * The behaviour every middleware shares (Express, Fastify, Hono, NestJS, Next.js): the nonce from
 * the widget's field in JSON or urlencoded bodies, the verdict for the handler, one 403
 * problem+json for every refusal, configuration errors to the framework's error handling.
 */
export function describeAdapterBehaviour(framework: string, mount: Mount, world: () => AdapterWorld): void {
  describe(`${framework} middleware`, () => {
    const servers: Mounted[] = [];
    const serve = async (verifier: NonceVerifier, options?: MiddlewareOptions) => {
      const server = await mount(verifier, options);
      servers.push(server);
      return server.url;
    };
    let url: string;
    beforeAll(async () => {
      url = await serve(world().verifier());
    });
    afterAll(() => Promise.all(servers.map((s) => s.close())));

    const sent = (what: Awaited<ReturnType<typeof post>>) => ({ status: what.status, type: what.type.split(';')[0], body: what.body });

    it('lets a JSON form with a good nonce through, the verdict on the request and the body still readable', async () => {
      const res = await post(url, { email: 'a@example.com', [FIELD]: await world().freshNonce() });
      expect(sent(res)).toEqual({
        status: 200,
        type: 'application/json',
        body: { handled: true, outcome: 'valid', hostname: world().hostname, email: 'a@example.com' },
      });
    });

    it('lets an urlencoded form through, and refuses it sent again (already_used) without running the handler', async () => {
      const form = { email: 'b@example.com', [FIELD]: await world().freshNonce() };
      expect((await post(url, form, 'form')).body).toMatchObject({ handled: true, outcome: 'valid', email: 'b@example.com' });
      expect(sent(await post(url, form, 'form'))).toEqual(problem({ outcome: 'invalid', reason: 'already_used' }));
    });

    it('refuses a form without the field, or with an empty or made-up nonce; a missing or empty one unasked', async () => {
      const before = world().asked?.().length;
      expect(sent(await post(url, { email: 'c@example.com' }))).toEqual(problem({ outcome: 'invalid', reason: 'malformed' }));
      expect(sent(await post(url, { [FIELD]: '' }, 'form'))).toEqual(problem({ outcome: 'invalid', reason: 'malformed' }));
      expect(sent(await post(url, { [FIELD]: ['a', 'b'] }))).toEqual(problem({ outcome: 'invalid', reason: 'malformed' }));
      if (before !== undefined) expect(world().asked!().length).toBe(before);
      expect(sent(await post(url, { [FIELD]: 'ghn_made_up' }))).toEqual(problem({ outcome: 'invalid', reason: 'unknown' }));
    });

    it('reads the field it is told to', async () => {
      const custom = await serve(world().verifier(), { field: 'captcha' });
      const nonce = await world().freshNonce();
      expect(sent(await post(custom, { [FIELD]: nonce }))).toEqual(problem({ outcome: 'invalid', reason: 'malformed' }));
      expect((await post(custom, { captcha: nonce })).body).toMatchObject({ handled: true, outcome: 'valid' });
    });

    it('applies the route’s checks', async () => {
      const strict = await serve(world().verifier(), { checks: { hostnames: ['elsewhere.example.org'] } });
      expect(sent(await post(strict, { [FIELD]: await world().freshNonce() }))).toEqual(
        problem({ outcome: 'invalid', reason: 'hostname_mismatch' }),
      );
    });

    it('refuses when Gatehouse cannot be reached, unless the verifier’s policy accepts it', async () => {
      const down = await serve(world().unavailable());
      expect(sent(await post(down, { [FIELD]: 'ghn_anything' }))).toEqual(problem({ outcome: 'unverified', error: expect.any(String) }));
      const lenient = await serve(world().unavailable({ onUnavailable: 'accept' }));
      expect((await post(lenient, { email: 'd@example.com', [FIELD]: 'ghn_anything' })).body).toEqual({
        handled: true,
        outcome: 'unverified',
        email: 'd@example.com',
      });
    });

    it('hands a key without the verify scope to the framework’s error handling (500), never to the handler', async () => {
      const misconfigured = await serve(world().wrongScope());
      const res = await post(misconfigured, { [FIELD]: await world().freshNonce() });
      expect({ status: res.status, handled: res.body.handled }).toEqual({ status: 500, handled: undefined });
    });
  });
}
