import { hash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Key format: "gh_" + 32 random base62 characters (~190 bits, CSPRNG) + 6-character base62 CRC32
 * of what precedes it. A typo or a truncated key fails the checksum and is refused without a
 * storage look-up; the first 8 random characters form the visible prefix.
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PREFIX = 'gh_';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_LENGTH = KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

function base62(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH);
}

export function generateApiKey(): string {
  let body = KEY_PREFIX;
  for (let i = 0; i < RANDOM_LENGTH; i++) body += ALPHABET[randomInt(62)];
  return body + checksum(body);
}

/**
 * True when `key` has the length and prefix of a key this service issues: what the request path
 * checks before hashing, so a long or foreign header costs nothing. The characters and the checksum
 * (isWellFormedApiKey) are checked only before a storage look-up: on a cached key the pattern
 * alone cost ~0.1 µs of a ~25 µs request.
 */
export function mayBeApiKey(key: string): boolean {
  return key.length === KEY_LENGTH && key.startsWith(KEY_PREFIX);
}

/** True when `key` has the shape and checksum of a key this service issued. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(0, KEY_PREFIX.length + RANDOM_LENGTH);
  return key.slice(body.length) === checksum(body);
}

export function visiblePrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 8);
}

/** Keys carry ~190 bits of entropy, so a fast unsalted hash is enough to make a leaked table useless. */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}
