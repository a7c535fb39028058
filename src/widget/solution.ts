import { hashOneTimeToken } from '../common/one-time-token';
import {
  POW_ALGORITHM,
  POW_KEY_LENGTH,
  canonicalJson,
  hmacHex,
  counterTag,
  keySignatureOf,
  sameHex,
  type ChallengeBinding,
  type PowKeys,
} from './pow';

/** A solution our checks accepted: what the exchange needs of it. */
export interface VerifiedSolution {
  /** What marks it spent (a SpentStore claim): the SHA-256 of its challenge's signature. */
  readonly solutionId: string;
  /** When its challenge expires (ms). */
  readonly expiresAtMs: number;
  /** When its challenge was issued (ms). */
  readonly issuedAtMs: number;
  /** The solution: the visitor tried counter + 1 candidates. */
  readonly counter: number;
  readonly cost: number;
  /** The surge level the challenge was raised by (0: none). */
  readonly surge: number;
}

const HEX_64 = /^[0-9a-f]{64}$/;
const UINT32_MAX = 0xffffffff;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The widget's payload, base64 of JSON `{challenge: {parameters, signature}, solution: {counter, derivedKey}}`; undefined for anything else (ALTCHA's v1 payloads included). */
export function parsePayload(altcha: string): { parameters: Json; signature: string; counter: number; derivedKey: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(altcha, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(value) || !isObject(value.challenge) || !isObject(value.solution)) return undefined;
  const { parameters, signature } = value.challenge;
  const { counter, derivedKey } = value.solution;
  const ok =
    isObject(parameters) &&
    typeof signature === 'string' &&
    HEX_64.test(signature) &&
    Number.isInteger(counter) &&
    (counter as number) >= 0 &&
    (counter as number) <= UINT32_MAX &&
    typeof derivedKey === 'string' &&
    HEX_64.test(derivedKey);
  return ok ? { parameters, signature, counter: counter as number, derivedKey } : undefined;
}

/**
 * Why a solution was refused: `expired` for a correct solution of a challenge of ours that expired
 * before it was exchanged; `invalid` for anything else (malformed, forged or altered, another key's
 * challenge, a wrong solution).
 */
export type SolutionRefusal = 'invalid' | 'expired';

/**
 * The solution in `altcha` when it solves an unexpired challenge that one of `keys` signed for
 * `binding`, else why not. HMACs only: the challenge's signature first (so nothing else is looked
 * at for a forged or altered challenge), then the derived key's signature and the counter's tag,
 * then the expiry (so `expired` means the work was done). Whether it was already spent is the
 * caller's to check.
 */
export function checkSolution(
  altcha: string,
  binding: ChallengeBinding,
  keys: readonly PowKeys[],
  now = Date.now(),
): VerifiedSolution | SolutionRefusal {
  const payload = parsePayload(altcha);
  if (payload === undefined) return 'invalid';
  const { parameters: p, signature, counter } = payload;
  const signed = canonicalJson(p);
  const key = keys.find((k) => sameHex(hmacHex(k.signature, signed), signature));
  if (key === undefined) return 'invalid';
  const data = p.data;
  if (
    p.algorithm !== POW_ALGORITHM ||
    p.keyLength !== POW_KEY_LENGTH ||
    !Number.isInteger(p.cost) ||
    typeof p.expiresAt !== 'number' ||
    typeof p.keySignature !== 'string' ||
    typeof p.keyPrefix !== 'string' ||
    !isObject(data) ||
    typeof data.issuedAt !== 'number' ||
    typeof data.surge !== 'number' ||
    typeof data.tag !== 'string'
  ) {
    return 'invalid';
  }
  const bound = 'key' in binding ? data.key === binding.key : data.purpose === binding.purpose;
  if (!bound || !payload.derivedKey.startsWith(p.keyPrefix)) return 'invalid';
  const derivedKey = Buffer.from(payload.derivedKey, 'hex');
  if (!sameHex(keySignatureOf(key, derivedKey), p.keySignature) || !sameHex(counterTag(key.tag, derivedKey, counter), data.tag)) {
    return 'invalid';
  }
  if (p.expiresAt * 1000 <= now) return 'expired';
  return {
    solutionId: hashOneTimeToken(signature),
    expiresAtMs: p.expiresAt * 1000,
    issuedAtMs: data.issuedAt,
    counter,
    cost: p.cost as number,
    surge: data.surge,
  };
}
