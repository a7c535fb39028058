import { solveChallenge, verifySolution, type Challenge } from 'altcha-lib';
import { deriveKey as altchaPbkdf2 } from 'altcha-lib/algorithms/pbkdf2';
import { createChallenge as createV1Challenge } from 'altcha-lib/v1';
import { POW_ALGORITHM, POW_COST, makeChallenge, powKeys, type ChallengeBinding, type PowKeys } from './pow';
import { checkSolution, parsePayload } from './solution';

const KEYS = powKeys('current widget secret of at least thirty-two bytes');
const OLD_KEYS = powKeys('widget secret before the rotation, thirty-two+ bytes');
const KEY_A: ChallengeBinding = { key: 'key-a' };
const SIGNUP: ChallengeBinding = { purpose: 'signup' };

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64');

/** A challenge as the service makes it (small MAX, so quick), solved by altcha-lib as a bot would, submitted as the widget does. */
async function solved(binding: ChallengeBinding, options: { keys?: PowKeys; ttlMs?: number; max?: number } = {}) {
  const challenge = await makeChallenge(options.keys ?? KEYS, {
    binding,
    max: options.max ?? 20,
    surge: 0,
    ttlMs: options.ttlMs ?? 300_000,
  });
  const solution = (await solveChallenge({ challenge, deriveKey: altchaPbkdf2 }))!;
  return { challenge, solution, altcha: encode({ challenge, solution }) };
}

describe('widget challenges (ALTCHA v2, PBKDF2 in counter mode)', () => {
  it('are ALTCHA v2 challenges altcha-lib verifies with one HMAC, and we accept what its solver finds', async () => {
    const { challenge, solution, altcha } = await solved(KEY_A, { max: 200 });
    expect(challenge.parameters).toMatchObject({
      algorithm: POW_ALGORITHM,
      cost: POW_COST,
      keyLength: 32,
      data: { key: 'key-a', surge: 0 },
    });
    expect(challenge.parameters.keyPrefix).toMatch(/^[0-9a-f]{32}$/);
    const result = await verifySolution({
      challenge,
      solution,
      deriveKey: altchaPbkdf2,
      hmacSignatureSecret: KEYS.signature,
      hmacKeySignatureSecret: KEYS.keySignature,
    });
    expect(result).toMatchObject({ verified: true, expired: false, invalidSignature: false });
    expect(checkSolution(altcha, KEY_A, [KEYS])).toMatchObject({ counter: solution.counter, cost: POW_COST, surge: 0 });
  });

  it('draw the solution uniformly from 0 to MAX, 0 included', async () => {
    const counters = new Set<number>();
    for (let i = 0; i < 40; i++) counters.add((await solved(KEY_A, { max: 3 })).solution.counter);
    expect([...counters].sort()).toEqual([0, 1, 2, 3]);
  });

  it('refuse another key’s challenge, and sign-up’s; sign-up’s are accepted only for sign-up', async () => {
    expect(checkSolution((await solved({ key: 'key-b' })).altcha, KEY_A, [KEYS])).toBe('invalid');
    expect(checkSolution((await solved(SIGNUP)).altcha, KEY_A, [KEYS])).toBe('invalid');
    expect(checkSolution((await solved(SIGNUP)).altcha, SIGNUP, [KEYS])).toHaveProperty('solutionId');
    expect(checkSolution((await solved(KEY_A)).altcha, SIGNUP, [KEYS])).toBe('invalid');
  });

  it('refuse a counter that is not the solution, or not a uint32, and a derived key that is not its key', async () => {
    const { challenge, solution } = await solved(KEY_A, { max: 5 });
    for (const counter of [solution.counter + 1, solution.counter + 2 ** 32, -1, 2 ** 32, 1.5, '1']) {
      expect(checkSolution(encode({ challenge, solution: { ...solution, counter } }), KEY_A, [KEYS])).toBe('invalid');
    }
    const otherKey = (await solved(KEY_A, { max: 5 })).solution.derivedKey;
    expect(checkSolution(encode({ challenge, solution: { ...solution, derivedKey: otherKey } }), KEY_A, [KEYS])).toBe('invalid');
  });

  it('refuse parameters changed after signing: algorithm, cost, keyPrefix, keySignature, binding, expiry', async () => {
    const { challenge, solution } = await solved(KEY_A);
    const p = challenge.parameters;
    for (const changed of [
      { algorithm: 'SHA-256' },
      { cost: 1 },
      { keyPrefix: p.keyPrefix.slice(0, 2) },
      { keySignature: 'ab'.repeat(32) },
      { data: { ...p.data, key: 'key-b' } },
      { expiresAt: p.expiresAt! + 3600 },
    ]) {
      const altered: Challenge = { ...challenge, parameters: { ...p, ...changed } };
      expect(checkSolution(encode({ challenge: altered, solution }), KEY_A, [KEYS])).toBe('invalid');
    }
  });

  it('refuse an expired challenge: expired when it was solved, invalid when it was not', async () => {
    const { challenge, solution, altcha } = await solved(KEY_A, { ttlMs: 1000 });
    expect(checkSolution(altcha, KEY_A, [KEYS], Date.now() + 2000)).toBe('expired');
    const wrong = encode({ challenge, solution: { ...solution, counter: solution.counter + 1 } });
    expect(checkSolution(wrong, KEY_A, [KEYS], Date.now() + 2000)).toBe('invalid');
  });

  it('verify with every listed secret, so a rotation keeps challenges already out; an unlisted secret’s are forged', async () => {
    const { altcha } = await solved(KEY_A, { keys: OLD_KEYS });
    expect(checkSolution(altcha, KEY_A, [KEYS, OLD_KEYS])).toHaveProperty('solutionId');
    expect(checkSolution(altcha, KEY_A, [KEYS])).toBe('invalid');
  });

  it('refuse ALTCHA’s v1 payloads and anything that is not a payload', async () => {
    const v1 = await createV1Challenge({
      algorithm: 'SHA-256',
      hmacKey: KEYS.signature,
      maxnumber: 10,
      number: 3,
      params: { key: 'key-a' },
    });
    expect(checkSolution(encode({ ...v1, number: 3 }), KEY_A, [KEYS])).toBe('invalid');
    for (const s of ['', 'not base64 ~~', encode(null), encode([]), encode({ challenge: {}, solution: {} }), encode('text')]) {
      expect(parsePayload(s)).toBeUndefined();
    }
  });
});
