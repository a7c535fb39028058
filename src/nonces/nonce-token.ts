import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A nonce is a signed, self-describing token (docs/DECISIONS.md, "Nonces are signed tokens"): what
 * verification needs travels inside it, so issuing one writes nothing, and only its single use is
 * stored (SpentStore) until it expires.
 *
 * `ghn_` + base64url of: version (1 byte) · account id (16) · token id (16 random bytes, what single
 * use is recorded under) · issued at (uint32 s) · expires at (uint32 s) · hostname (UTF-8, 0–253
 * bytes, empty for none) · HMAC-SHA256 of all of that (32). At most 326 bytes, 439 characters.
 */

export const NONCE_PREFIX = 'ghn_';
const VERSION = 1;
const HEAD_BYTES = 1 + 16 + 16 + 4 + 4;
const MAC_BYTES = 32;
export const MAX_HOSTNAME_BYTES = 253;
/** The longest token we make (and so the longest string worth decoding). */
export const NONCE_TOKEN_MAX_LENGTH = NONCE_PREFIX.length + Math.ceil(((HEAD_BYTES + MAX_HOSTNAME_BYTES + MAC_BYTES) * 4) / 3);
const TOKEN_PATTERN = /^ghn_[A-Za-z0-9_-]+$/;

export interface NonceFields {
  readonly accountId: string;
  /** 32 hex characters: the token's identity for single use. */
  readonly id: string;
  /** Seconds since the epoch. */
  readonly issuedAt: number;
  /** Seconds since the epoch. */
  readonly expiresAt: number;
  readonly hostname: string | null;
}

/** The keys nonces are signed with, one per widget secret (the first signs, all verify); not the secrets themselves. */
export function nonceKeys(widgetSecrets: readonly string[]): Buffer[] {
  return widgetSecrets.map((secret) => createHmac('sha256', secret).update('gatehouse nonce v1').digest());
}

export const newNonceId = (): string => randomBytes(16).toString('hex');

export function signNonce(fields: NonceFields, key: Buffer): string {
  const host = Buffer.from(fields.hostname ?? '', 'utf8');
  if (host.length > MAX_HOSTNAME_BYTES) throw new RangeError('hostname longer than 253 bytes');
  const body = Buffer.alloc(HEAD_BYTES + host.length);
  body[0] = VERSION;
  Buffer.from(fields.accountId.replace(/-/g, ''), 'hex').copy(body, 1);
  Buffer.from(fields.id, 'hex').copy(body, 17);
  body.writeUInt32BE(fields.issuedAt, 33);
  body.writeUInt32BE(fields.expiresAt, 37);
  host.copy(body, HEAD_BYTES);
  const mac = createHmac('sha256', key).update(body).digest();
  return NONCE_PREFIX + Buffer.concat([body, mac]).toString('base64url');
}

/** The fields of a token one of `keys` signed, or undefined for any other string. */
export function readNonce(token: string, keys: readonly Buffer[]): NonceFields | undefined {
  if (token.length > NONCE_TOKEN_MAX_LENGTH || !TOKEN_PATTERN.test(token)) return undefined;
  const bytes = Buffer.from(token.slice(NONCE_PREFIX.length), 'base64url');
  if (bytes.length < HEAD_BYTES + MAC_BYTES || bytes[0] !== VERSION) return undefined;
  const body = bytes.subarray(0, bytes.length - MAC_BYTES);
  const mac = bytes.subarray(bytes.length - MAC_BYTES);
  if (!keys.some((key) => timingSafeEqual(createHmac('sha256', key).update(body).digest(), mac))) return undefined;
  const hex = body.toString('hex', 1, 17);
  return {
    accountId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    id: body.toString('hex', 17, 33),
    issuedAt: body.readUInt32BE(33),
    expiresAt: body.readUInt32BE(37),
    hostname: body.length > HEAD_BYTES ? body.toString('utf8', HEAD_BYTES) : null,
  };
}
