import { createChallenge } from 'altcha-lib/v1';
import { ChallengeBinding, parsePayload, spentHash, verifiedSolution } from './solution';

const SECRET = 'current widget secret';
const OLD_SECRET = 'widget secret before the rotation';
const NUMBER = 42;

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64');

/** A challenge as the service makes it, with its secret number known, solved as the widget submits it. */
async function solved(params: Record<string, string>, options: { secret?: string; expiresInMs?: number } = {}) {
  const challenge = await createChallenge({
    algorithm: 'SHA-256',
    hmacKey: options.secret ?? SECRET,
    maxnumber: 100,
    number: NUMBER,
    expires: new Date(Date.now() + (options.expiresInMs ?? 300_000)),
    params,
  });
  const solution = { algorithm: challenge.algorithm, challenge: challenge.challenge, salt: challenge.salt, signature: challenge.signature };
  return { solution, altcha: encode({ ...solution, number: NUMBER }) };
}

const KEY_A: ChallengeBinding = { key: 'key-a' };
const SIGNUP: ChallengeBinding = { purpose: 'signup' };

describe('verifiedSolution', () => {
  it('accepts a correct, unexpired solution of a challenge issued for the same key', async () => {
    const { altcha } = await solved({ key: 'key-a' });
    expect(await verifiedSolution(altcha, KEY_A, [SECRET])).toMatchObject({ number: NUMBER });
  });

  it('refuses a challenge issued for another key, or for the sign-up form', async () => {
    expect(await verifiedSolution((await solved({ key: 'key-b' })).altcha, KEY_A, [SECRET])).toBeUndefined();
    expect(await verifiedSolution((await solved({ purpose: 'signup' })).altcha, KEY_A, [SECRET])).toBeUndefined();
  });

  it('accepts a sign-up challenge only for sign-up, never a key’s', async () => {
    expect(await verifiedSolution((await solved({ purpose: 'signup' })).altcha, SIGNUP, [SECRET])).toBeDefined();
    expect(await verifiedSolution((await solved({ key: 'key-a' })).altcha, SIGNUP, [SECRET])).toBeUndefined();
  });

  it('refuses a wrong number', async () => {
    const { solution } = await solved({ key: 'key-a' });
    for (const number of [NUMBER - 1, NUMBER + 1, 0]) {
      expect(await verifiedSolution(encode({ ...solution, number }), KEY_A, [SECRET])).toBeUndefined();
    }
  });

  it('refuses a challenge whose binding was edited after signing', async () => {
    const { solution } = await solved({ key: 'key-b' });
    const salt = solution.salt.replace('key=key-b', 'key=key-a');
    expect(salt).not.toBe(solution.salt);
    expect(await verifiedSolution(encode({ ...solution, salt, number: NUMBER }), KEY_A, [SECRET])).toBeUndefined();
  });

  it('refuses an expired challenge', async () => {
    const { altcha } = await solved({ key: 'key-a' }, { expiresInMs: -1000 });
    expect(await verifiedSolution(altcha, KEY_A, [SECRET])).toBeUndefined();
  });

  it('accepts a challenge signed with a secret still listed after a rotation, and none signed with another', async () => {
    const { altcha } = await solved({ key: 'key-a' }, { secret: OLD_SECRET });
    expect(await verifiedSolution(altcha, KEY_A, [SECRET, OLD_SECRET])).toBeDefined();
    expect(await verifiedSolution(altcha, KEY_A, [SECRET])).toBeUndefined();
  });
});

describe('parsePayload', () => {
  const good = { algorithm: 'SHA-256', challenge: 'c', salt: 's?key=k', signature: 'sig', number: 7 };

  it('reads the widget’s base64 JSON', () => {
    expect(parsePayload(encode(good))).toEqual(good);
  });

  it('drops fields it does not know', () => {
    expect(parsePayload(encode({ ...good, took: 12, extra: { deep: true } }))).toEqual(good);
  });

  it('refuses what is not base64 JSON of an object', () => {
    for (const altcha of ['', '!!!', encode('a string'), encode([good]), encode(null), Buffer.from('{"algorithm":').toString('base64')]) {
      expect(parsePayload(altcha)).toBeUndefined();
    }
  });

  it('refuses another algorithm, a missing field, or a number that is not a non-negative safe integer', () => {
    for (const bad of [
      { ...good, algorithm: 'SHA-1' },
      { ...good, signature: undefined },
      { ...good, salt: 5 },
      { ...good, number: -1 },
      { ...good, number: 1.5 },
      { ...good, number: '7' },
      { ...good, number: 2 ** 53 },
    ]) {
      expect(parsePayload(encode(bad))).toBeUndefined();
    }
  });
});

describe('spentHash', () => {
  it('is the same however the same solution is re-encoded, so a resubmission with other JSON is still spent', async () => {
    const { solution, altcha } = await solved({ key: 'key-a' });
    const reordered = Buffer.from(JSON.stringify({ number: NUMBER, ...solution, took: 3 }, null, 2)).toString('base64');
    expect(reordered).not.toBe(altcha);
    expect(spentHash(parsePayload(reordered)!)).toBe(spentHash(parsePayload(altcha)!));
  });

  it('differs between challenges', async () => {
    const a = parsePayload((await solved({ key: 'key-a' })).altcha)!;
    const b = parsePayload((await solved({ key: 'key-a' })).altcha)!;
    expect(spentHash(a)).not.toBe(spentHash(b));
  });
});
