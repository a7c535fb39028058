import { createHmac, createSecretKey } from 'node:crypto';
import { CONFIRMATION_TTL_MS, confirmationToken, confirmedUserId } from './confirmation-token';

const key = createSecretKey(Buffer.from('a JWT signing key of the instance, 32+ bytes long'));
const otherKey = createSecretKey(Buffer.from('the signing key of another deployment, as long'));
const userId = '0b8f4a6e-2f1c-4c1e-9a43-5d2b7e9c1f00';
const now = Date.UTC(2026, 10, 25, 12);

describe('sign-up confirmation tokens', () => {
  const token = confirmationToken(key, userId, now);

  it('name their user until they expire, 24 hours on', () => {
    expect(token).toMatch(/^ghc_[0-9a-f-]{36}\.\d{13}\.[A-Za-z0-9_-]{43}$/);
    expect(confirmedUserId(key, token, now)).toBe(userId);
    expect(confirmedUserId(key, token, now + CONFIRMATION_TTL_MS - 1)).toBe(userId);
  });

  it('are refused from the instant they expire', () => {
    expect(CONFIRMATION_TTL_MS).toBe(24 * 3600_000);
    expect(confirmedUserId(key, token, now + CONFIRMATION_TTL_MS)).toBeUndefined();
  });

  it('are refused when made with another key', () => {
    expect(confirmedUserId(otherKey, token, now)).toBeUndefined();
    expect(confirmedUserId(key, confirmationToken(otherKey, userId, now), now)).toBeUndefined();
  });

  it('cannot be moved to another user or given a later expiry', () => {
    const [, , mac] = token.slice(4).split('.');
    const anotherUser = token.replace(userId, '7d1e0c55-9b0a-4f7e-8c2d-3a6f5b4e1d22');
    const later = `ghc_${userId}.${now + 10 * CONFIRMATION_TTL_MS}.${mac}`;
    expect(confirmedUserId(key, anotherUser, now)).toBeUndefined();
    expect(confirmedUserId(key, later, now)).toBeUndefined();
  });

  it('are not a MAC of the key without their purpose (another use of the JWT key cannot be passed off as one)', () => {
    const body = `${userId}.${now + CONFIRMATION_TTL_MS}`;
    const bare = createHmac('sha256', key).update(body).digest('base64url');
    expect(confirmedUserId(key, `ghc_${body}.${bare}`, now)).toBeUndefined();
  });

  it('refuse anything not of their exact shape', () => {
    for (const malformed of [
      '',
      token.slice(4), // no prefix
      `ghr_${token.slice(4)}`,
      `${token}x`,
      token.slice(0, -1),
      ` ${token}`,
      token.replace(userId, userId.toUpperCase()),
    ]) {
      expect(confirmedUserId(key, malformed, now)).toBeUndefined();
    }
  });
});
