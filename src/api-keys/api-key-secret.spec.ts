import { createHash } from 'node:crypto';
import { generateApiKey, hashApiKey, isWellFormedApiKey, mayBeApiKey, visiblePrefix } from './api-key-secret';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Replaces the character at `i` by a different base62 character. */
function changeAt(key: string, i: number, shift = 1): string {
  const c = key[i];
  const idx = BASE62.indexOf(c);
  const replacement = idx === -1 ? (c === 'g' ? 'h' : 'g') : BASE62[(idx + shift) % 62];
  return key.slice(0, i) + replacement + key.slice(i + 1);
}

describe('generateApiKey', () => {
  it('issues keys of "gh_" followed by 38 base62 characters', () => {
    for (let i = 0; i < 50; i++) expect(generateApiKey()).toMatch(/^gh_[0-9A-Za-z]{38}$/);
  });

  it('never issues the same key twice in 1000 keys', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey()));
    expect(keys.size).toBe(1000);
  });
});

describe('mayBeApiKey', () => {
  it('passes every key the service issues', () => {
    for (let i = 0; i < 50; i++) expect(mayBeApiKey(generateApiKey())).toBe(true);
  });

  it('stops a header of another length or prefix before it is hashed', () => {
    const key = generateApiKey();
    for (const other of ['', 'gh_', key.slice(0, -1), `${key}a`, key.repeat(100), `gx_${key.slice(3)}`, `GH_${key.slice(3)}`]) {
      expect({ other, ok: mayBeApiKey(other) }).toEqual({ other, ok: false });
    }
  });
});

describe('isWellFormedApiKey', () => {
  it('accepts every key the service issues', () => {
    for (let i = 0; i < 200; i++) expect(isWellFormedApiKey(generateApiKey())).toBe(true);
  });

  it('refuses a key with any single character mistyped, in the secret or in the checksum', () => {
    const keys = Array.from({ length: 20 }, () => generateApiKey());
    for (const key of keys) {
      for (let i = 0; i < key.length; i++) {
        for (const shift of [1, 17, 61]) expect({ i, ok: isWellFormedApiKey(changeAt(key, i, shift)) }).toEqual({ i, ok: false });
      }
    }
  });

  it('refuses a truncated key', () => {
    const key = generateApiKey();
    for (const cut of [1, 2, 6, 20]) expect(isWellFormedApiKey(key.slice(0, key.length - cut))).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
    expect(isWellFormedApiKey('gh_')).toBe(false);
  });

  it('refuses a key with extra characters before or after it', () => {
    const key = generateApiKey();
    expect(isWellFormedApiKey(`${key}a`)).toBe(false);
    expect(isWellFormedApiKey(`${key} `)).toBe(false);
    expect(isWellFormedApiKey(`${key}\n`)).toBe(false);
    expect(isWellFormedApiKey(` ${key}`)).toBe(false);
  });

  it('refuses a key with another prefix', () => {
    const body = generateApiKey().slice(3);
    for (const prefix of ['gx_', 'GH_', 'sk_', 'gh-']) expect(isWellFormedApiKey(prefix + body)).toBe(false);
  });

  it('refuses characters outside base62', () => {
    const key = generateApiKey();
    for (const bad of ['-', '_', '+', '/', '=', 'é']) expect(isWellFormedApiKey(key.slice(0, 10) + bad + key.slice(11))).toBe(false);
  });
});

describe('visiblePrefix', () => {
  it('shows "gh_" and the first 8 random characters only', () => {
    const key = generateApiKey();
    expect(visiblePrefix(key)).toBe(key.slice(0, 11));
    expect(visiblePrefix(key)).toMatch(/^gh_[0-9A-Za-z]{8}$/);
  });
});

describe('hashApiKey', () => {
  it('is the hex SHA-256 of the key', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    // FIPS 180-2 test vector
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('gives different keys different hashes and the same key the same hash', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(hashApiKey(a)).toBe(hashApiKey(a));
    expect(hashApiKey(a)).not.toBe(hashApiKey(b));
    expect(hashApiKey(a)).not.toContain(a);
  });
});
