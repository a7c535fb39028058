import { createHash } from 'node:crypto';
import type { TestApp } from './test-app';

/**
 * The number whose SHA-256 with the salt is the challenge, searched as a bot would: node:crypto in a
 * loop, ~20 times altcha-lib's WebCrypto solver in Node, so suites that solve the plans' default
 * difficulty many times stay quick. The server still verifies every solution with altcha-lib.
 */
export function solve(challenge: { challenge: string; salt: string; maxnumber: number }): number {
  for (let n = 0; n <= challenge.maxnumber; n++) {
    if (
      createHash('sha256')
        .update(challenge.salt + n)
        .digest('hex') === challenge.challenge
    )
      return n;
  }
  throw new Error('challenge not solved');
}

/** What the altcha widget submits for a challenge: base64 of the JSON solution. */
export const altchaPayload = (challenge: Record<string, unknown>, number: number): string =>
  Buffer.from(JSON.stringify({ ...challenge, number })).toString('base64');

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
