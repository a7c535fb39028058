import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * One-time tokens: invitations (`ghi_`), password resets (`ghr_`), nonces (`ghn_`) and sign-ins' second steps (`ghm_`). 32 random
 * bytes (256 bits, CSPRNG) make a guess hopeless, so the database keeps only a fast unsalted
 * SHA-256 of each and looks the token up by it: a leaked table gives no usable token.
 */
export function newOneTimeToken(prefix: 'ghi' | 'ghr' | 'ghn' | 'ghm'): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** What is stored of a one-time token (or of anything spent once, such as a solved challenge's signature): SHA-256, hex. */
export function hashOneTimeToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Equal strings, compared in a time that does not depend on where they differ (a forged MAC learns nothing from it). */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
