import { createHmac, pbkdf2, randomInt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { createChallenge, type Challenge, type DeriveKeyFunction } from 'altcha-lib';

/**
 * The widget's proof of work (docs/API.md, "Challenges";
 * docs/DECISIONS.md, "Widget challenges (proof of work)"): ALTCHA's v2 format, `PBKDF2/SHA-256` at POW_COST iterations a candidate, in counter
 * (deterministic) mode. A challenge is made by drawing a counter uniformly from [0, MAX] and
 * deriving its key once (node:crypto's asynchronous PBKDF2, on libuv's thread pool, never on the
 * event loop); the browser walks counters from 0 until a key starts with the signed `keyPrefix`.
 * Checking a solution is HMACs only: the challenge's signature, the derived key's `keySignature`
 * and our counter tag, never a derivation.
 *
 * altcha-lib makes the parameters (random nonce and salt, the counter's password, validation);
 * signatures are HMAC-SHA-256 by node:crypto, byte-identical to altcha-lib's WebCrypto ones (a
 * unit test holds altcha-lib's `verifySolution` to that) and ~10 times cheaper.
 */

export const POW_ALGORITHM = 'PBKDF2/SHA-256';
/** PBKDF2 iterations a candidate: a browser's WebCrypto and a CPU bot pay about the same for one. */
export const POW_COST = 1000;
/** Bytes of a derived key (the widget's PBKDF2 worker derives an AES key: 32). */
export const POW_KEY_LENGTH = 32;

/**
 * Difficulty in people's terms: the median wait of a visitor, in ms, on the reference machine
 * (2 cores, Chromium, the widget's two workers; `npm run bench:widget`, docs/API.md "Challenge
 * difficulty"), and the largest counter drawn for it. A surge doubles MAX per surge level.
 */
export const WAIT_LEVELS = [250, 500, 1000, 2000] as const;
export type WaitLevel = (typeof WAIT_LEVELS)[number];
export const DEFAULT_WAIT_MS: WaitLevel = 500;
/**
 * Measured (`npm run bench:widget`, docs/PERFORMANCE.md "Widget solve time"): click → nonce is about
 * 90 ms of fixed cost (challenge, exchange; the workers start before the click) plus 0.18 ms a
 * candidate, and the median counter is MAX / 2, so MAX ≈ 2 × (wait − 90) / 0.18, rounded down with
 * room for a busier machine.
 */
export const MAX_COUNTER: Record<WaitLevel, number> = { 250: 1200, 500: 3500, 1000: 9000, 2000: 20_000 };
/** A visitor's browser (reference machine, two workers) walks this many ms a candidate (the fixed cost aside). */
export const VISITOR_MS_PER_CANDIDATE = 0.18;
/** A CPU bot (altcha-lib's solveChallenge with node:crypto, one core) pays this many CPU-ms a candidate. */
export const BOT_MS_PER_CANDIDATE = 0.24;

export const maxCounter = (waitMs: WaitLevel, surgeLevel: number): number => MAX_COUNTER[waitMs] * 2 ** surgeLevel;

/** The visitor's expected compute time for a challenge whose solution is `counter` (it tries counter + 1 candidates). */
export const expectedSolveMs = (counter: number): number => Math.round((counter + 1) * VISITOR_MS_PER_CANDIDATE);

/** Whom a challenge was issued for: a widget's API key, or Gatehouse's own sign-up form. */
export type ChallengeBinding = { readonly key: string } | { readonly purpose: 'signup' };

/**
 * The signed `data` of our challenges: the binding, when it was issued (ms, for the solve time),
 * the surge level it was raised by, and `tag`, an HMAC of the solution (derived key and counter)
 * that lets the exchange trust the counter without deriving (the counter is the visitor's work).
 */
export interface ChallengeData {
  readonly key?: string;
  readonly purpose?: 'signup';
  readonly issuedAt: number;
  readonly surge: number;
  readonly tag: string;
}

/** The keys one widget secret gives: the challenge's signature, the derived key's signature, and the counter tag. */
export interface PowKeys {
  readonly signature: string;
  readonly keySignature: string;
  readonly tag: Buffer;
}

/** Separate HMAC keys for the three uses of each widget secret (the first signs, all verify). */
export function powKeys(secret: string): PowKeys {
  const sub = (label: string) => createHmac('sha256', secret).update(label).digest();
  return { signature: secret, keySignature: sub('gatehouse pow key signature').toString('hex'), tag: sub('gatehouse pow counter tag') };
}

const pbkdf2Async = promisify(pbkdf2);

/** One PBKDF2 derivation, as the widget's worker and altcha-lib's `algorithms/pbkdf2` do it. */
export const deriveKey: DeriveKeyFunction = async (parameters, salt, password) => ({
  derivedKey: await pbkdf2Async(password, salt, parameters.cost, parameters.keyLength, 'sha256'),
});

export const hmacHex = (key: string | Buffer, data: string | Uint8Array): string => createHmac('sha256', key).update(data).digest('hex');

/** The counter tag: HMAC of the derived key and the counter (uint32, big-endian), 128 bits in hex. */
export function counterTag(key: Buffer, derivedKey: Uint8Array, counter: number): string {
  const c = Buffer.alloc(4);
  c.writeUInt32BE(counter);
  return createHmac('sha256', key).update(derivedKey).update(c).digest('hex').slice(0, 32);
}

/** Keys sorted at every level, undefined left out: the JSON altcha-lib signs (its canonicalJSON). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const o = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => [k, sortKeys(o[k])]),
  );
}

export const challengeSignature = (keys: PowKeys, parameters: Challenge['parameters']): string =>
  hmacHex(keys.signature, canonicalJson(parameters));
export const keySignatureOf = (keys: PowKeys, derivedKey: Uint8Array): string => hmacHex(keys.keySignature, derivedKey);

/** Constant-time equality of two hex strings (false for different lengths). */
export function sameHex(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

export interface NewChallenge {
  readonly binding: ChallengeBinding;
  readonly max: number;
  readonly surge: number;
  readonly ttlMs: number;
  readonly now?: number;
}

/**
 * A signed challenge: one derivation (off the event loop). The counter, the solution, is drawn
 * uniformly from [0, max], 0 included: a minimum a bot knows is one it skips.
 */
export async function makeChallenge(keys: PowKeys, c: NewChallenge): Promise<Required<Pick<Challenge, 'parameters' | 'signature'>>> {
  const now = c.now ?? Date.now();
  const counter = randomInt(0, c.max + 1);
  let derivedKey: Uint8Array | undefined;
  const unsigned = await createChallenge({
    algorithm: POW_ALGORITHM,
    cost: POW_COST,
    keyLength: POW_KEY_LENGTH,
    counter,
    expiresAt: new Date(now + c.ttlMs),
    deriveKey: async (parameters, salt, password) => {
      const result = await deriveKey(parameters, salt, password);
      derivedKey = result.derivedKey;
      return result;
    },
  });
  const parameters = sortKeys({
    ...unsigned.parameters,
    keySignature: keySignatureOf(keys, derivedKey!),
    data: { ...c.binding, issuedAt: now, surge: c.surge, tag: counterTag(keys.tag, derivedKey!, counter) },
  }) as Challenge['parameters'];
  return { parameters, signature: challengeSignature(keys, parameters) };
}
