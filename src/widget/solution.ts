import { extractParams, verifySolution } from 'altcha-lib/v1';
import { hashOneTimeToken } from '../common/one-time-token';

export interface AltchaPayload {
  readonly algorithm: 'SHA-256';
  readonly challenge: string;
  readonly number: number;
  readonly salt: string;
  readonly signature: string;
}

/** Whom a challenge was issued for: a widget's API key, or Gatehouse's own sign-up form. */
export type ChallengeBinding = { readonly key: string } | { readonly purpose: 'signup' };

/** The widget's base64 payload as a solution, or undefined for anything else (bad base64, JSON, shape). */
export function parsePayload(altcha: string): AltchaPayload | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(altcha, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const p = value as Record<string, unknown>;
  const ok =
    p.algorithm === 'SHA-256' &&
    typeof p.challenge === 'string' &&
    typeof p.salt === 'string' &&
    typeof p.signature === 'string' &&
    Number.isSafeInteger(p.number) &&
    (p.number as number) >= 0;
  return ok
    ? {
        algorithm: 'SHA-256',
        challenge: p.challenge as string,
        number: p.number as number,
        salt: p.salt as string,
        signature: p.signature as string,
      }
    : undefined;
}

/**
 * The solution in `altcha` when it is a correct, unexpired solution of a challenge issued for
 * `binding` and signed by one of `secrets` (the first signs; the others did, before a rotation);
 * undefined for anything else. Whether it was already spent is the caller's to check.
 */
export async function verifiedSolution(
  altcha: string,
  binding: ChallengeBinding,
  secrets: readonly string[],
): Promise<AltchaPayload | undefined> {
  const payload = parsePayload(altcha);
  if (payload === undefined) return undefined;
  const params = extractParams(payload);
  const bound = 'key' in binding ? params.key === binding.key : params.purpose === binding.purpose;
  if (!bound) return undefined;
  for (const secret of secrets) if (await verifySolution(payload, secret, true)) return payload;
  return undefined;
}

/** When the solution's challenge expires (ms): it is signed into the challenge, which verifiedSolution checked. */
export function expiresAtMs(solution: AltchaPayload): number {
  return Number(extractParams(solution).expires) * 1000;
}

/** What marks a solution spent (a SpentStore claim, a SpentChallenge row): the hash of its challenge's signature. */
export const spentHash = (solution: AltchaPayload): string => hashOneTimeToken(solution.signature);
