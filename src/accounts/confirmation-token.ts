import { createHmac, KeyObject } from 'node:crypto';
import { sameSecret } from '../common/one-time-token';

/** How long a sign-up confirmation link works. */
export const CONFIRMATION_TTL_MS = 24 * 3600_000;

const PATTERN = /^ghc_([0-9a-f-]{36})\.(\d{13})\.([A-Za-z0-9_-]{43})$/;

const mac = (key: KeyObject, body: string): string => createHmac('sha256', key).update(`email-confirmation:${body}`).digest('base64url');

/**
 * `ghc_<user id>.<expiry>.<HMAC>`: signed with the JWT key (under its own purpose, so no JWT or
 * other MAC made with that key passes for one), so no row is kept for it. Used once because
 * confirming sets `emailConfirmedAt`, which the service requires to be unset.
 */
export function confirmationToken(key: KeyObject, userId: string, now = Date.now()): string {
  const body = `${userId}.${now + CONFIRMATION_TTL_MS}`;
  return `ghc_${body}.${mac(key, body)}`;
}

/** The user a confirmation token was made for, or undefined when it is malformed, forged or expired at `now`. */
export function confirmedUserId(key: KeyObject, token: string, now = Date.now()): string | undefined {
  const match = PATTERN.exec(token);
  if (match === null) return undefined;
  const [, userId, expires, given] = match as unknown as [string, string, string, string];
  if (!sameSecret(given, mac(key, `${userId}.${expires}`)) || Number(expires) <= now) return undefined;
  return userId;
}
