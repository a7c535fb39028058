import { solveChallenge } from 'altcha-lib/v1';
import type { TestApp } from './test-app';

/** What the altcha widget submits for a challenge: base64 of the JSON solution. */
export const altchaPayload = (challenge: Record<string, unknown>, number: number): string =>
  Buffer.from(JSON.stringify({ ...challenge, number })).toString('base64');

/** Does what the widget does: fetches a challenge with the key and solves it with altcha-lib. */
export async function solvedAltcha(t: TestApp, key: string, origin?: string): Promise<string> {
  let req = t.http.get('/api/v1/widget/challenge').set('X-Api-Key', key);
  if (origin !== undefined) req = req.set('Origin', origin);
  const res = await req;
  if (res.status !== 200) throw new Error(`challenge: ${res.status} ${JSON.stringify(res.body)}`);
  const { challenge, salt, algorithm, maxnumber } = res.body;
  const solution = await solveChallenge(challenge, salt, algorithm, maxnumber).promise;
  if (solution === null) throw new Error('challenge not solved');
  return altchaPayload(res.body, solution.number);
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
