import { pbkdf2Sync } from 'node:crypto';
import type { TestApp } from './test-app';

/** An ALTCHA v2 challenge as GET /api/v1/widget/challenge answers it. */
export interface V2Challenge {
  parameters: { algorithm: string; nonce: string; salt: string; cost: number; keyLength: number; keyPrefix: string } & Record<
    string,
    unknown
  >;
  signature: string;
}

/**
 * The solution of a PBKDF2 challenge, searched as a bot would (and as the widget does): counters
 * from 0, node:crypto's PBKDF2, until a derived key starts with the signed prefix (or, with
 * `upTo`, past that counter: then it throws).
 */
export function solve(challenge: V2Challenge, upTo = 0xffffffff): { counter: number; derivedKey: string } {
  const { nonce, salt, cost, keyLength, keyPrefix } = challenge.parameters;
  const password = Buffer.alloc(nonce.length / 2 + 4);
  Buffer.from(nonce, 'hex').copy(password);
  const saltBytes = Buffer.from(salt, 'hex');
  for (let counter = 0; counter <= upTo; counter++) {
    password.writeUInt32BE(counter, password.length - 4);
    const derivedKey = pbkdf2Sync(password, saltBytes, cost, keyLength, 'sha256').toString('hex');
    if (derivedKey.startsWith(keyPrefix)) return { counter, derivedKey };
  }
  throw new Error('challenge not solved');
}

/** What the altcha widget submits for a challenge: base64 of the JSON `{challenge, solution}`. */
export const altchaPayload = (challenge: unknown, solution: { counter: number; derivedKey: string }): string =>
  Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');

/** Does what the widget does: fetches a challenge with the key and solves it. */
export async function solvedAltcha(t: TestApp, key: string, origin?: string): Promise<string> {
  let req = t.http.get('/api/v1/widget/challenge').set('X-Api-Key', key);
  if (origin !== undefined) req = req.set('Origin', origin);
  const res = await req;
  if (res.status !== 200) throw new Error(`challenge: ${res.status} ${JSON.stringify(res.body)}`);
  return altchaPayload(res.body, solve(res.body));
}

/** A nonce as a browser gets one: a challenge solved, then exchanged. */
export async function issueNonce(t: TestApp, key: string, origin?: string): Promise<{ nonce: string; expiresAt: string }> {
  const altcha = await solvedAltcha(t, key, origin);
  let req = t.http.post('/api/v1/widget/nonces').set('X-Api-Key', key);
  if (origin !== undefined) req = req.set('Origin', origin);
  const res = await req.send({ altcha });
  if (res.status !== 201) throw new Error(`nonce: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Nonces the account's widget keys have been issued, as its analytics count them (challenges solved). */
export async function noncesIssued(t: TestApp, ownerToken: string): Promise<number> {
  const res = await t.http.get('/api/v1/analytics/widget?groupBy=apiKey').set('Authorization', `Bearer ${ownerToken}`).expect(200);
  return (res.body as { data: Array<{ challengesSolved: number }> }).data.reduce((sum, row) => sum + row.challengesSolved, 0);
}
