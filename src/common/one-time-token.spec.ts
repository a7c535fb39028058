import { hashOneTimeToken, newOneTimeToken, sameSecret } from './one-time-token';

describe('newOneTimeToken', () => {
  it('is the prefix and 32 random bytes in base64url: 43 URL-safe characters', () => {
    expect(newOneTimeToken('ghi')).toMatch(/^ghi_[A-Za-z0-9_-]{43}$/);
    expect(newOneTimeToken('ghr')).toMatch(/^ghr_[A-Za-z0-9_-]{43}$/);
    expect(newOneTimeToken('ghn')).toMatch(/^ghn_[A-Za-z0-9_-]{43}$/);
  });

  it('never repeats', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => newOneTimeToken('ghn')));
    expect(tokens.size).toBe(1000);
  });
});

describe('hashOneTimeToken', () => {
  it('is the SHA-256 of the token in hex, the form the database looks tokens up by', () => {
    expect(hashOneTimeToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('does not contain the token, and tells tokens one character apart', () => {
    const token = newOneTimeToken('ghr');
    const other = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect(hashOneTimeToken(token)).not.toContain(token.slice(4));
    expect(hashOneTimeToken(token)).not.toBe(hashOneTimeToken(other));
  });
});

describe('sameSecret', () => {
  it('is true for equal strings only', () => {
    expect(sameSecret('a-mac-value', 'a-mac-value')).toBe(true);
    expect(sameSecret('a-mac-value', 'a-mac-valuf')).toBe(false);
    expect(sameSecret('A-mac-value', 'a-mac-value')).toBe(false);
  });

  it('is false, not an error, when the lengths differ (a truncated or padded forgery)', () => {
    expect(sameSecret('a-mac', 'a-mac-value')).toBe(false);
    expect(sameSecret('a-mac-value ', 'a-mac-value')).toBe(false);
    expect(sameSecret('', 'a-mac-value')).toBe(false);
  });

  it('compares characters, not bytes of a lossy encoding', () => {
    expect(sameSecret('é', 'è')).toBe(false);
  });
});
