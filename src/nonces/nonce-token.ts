import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A nonce is a signed, self-describing token (docs/DECISIONS.md, "Nonces are signed tokens"): what
 * verification needs travels inside it, so issuing one writes nothing, and only its single use is
 * stored (SpentStore) until it expires.
 *
 * `ghn_` + base64url of: version (1 byte, 2) · account id (16) · token id (16 random bytes, what
 * single use is recorded under) · issued at (uint32 s) · expires at (uint32 s) · the effort of the
 * proof of work it was bought with: algorithm (1: PBKDF2/SHA-256), cost (uint32), expected solve
 * ms (uint32), solve ms (uint32), surge level (1) · hostname (UTF-8, 0–253 bytes, empty for none) ·
 * HMAC-SHA256 of all of that (32). At most 340 bytes, 458 characters. Version 1 tokens (no effort)
 * still verify, with effort null.
 */

export const NONCE_PREFIX = 'ghn_';
const VERSION = 2;
const V1_HEAD_BYTES = 1 + 16 + 16 + 4 + 4;
const EFFORT_BYTES = 1 + 4 + 4 + 4 + 1;
const HEAD_BYTES = V1_HEAD_BYTES + EFFORT_BYTES;
const MAC_BYTES = 32;
export const MAX_HOSTNAME_BYTES = 253;
/** The longest token we make (and so the longest string worth decoding). */
export const NONCE_TOKEN_MAX_LENGTH = NONCE_PREFIX.length + Math.ceil(((HEAD_BYTES + MAX_HOSTNAME_BYTES + MAC_BYTES) * 4) / 3);
const TOKEN_PATTERN = /^ghn_[A-Za-z0-9_-]+$/;
const ALGORITHMS = ['PBKDF2/SHA-256'] as const;
const UINT32_MAX = 0xffffffff;

/** What the proof of work behind a nonce cost (docs/API.md, "Effort"). */
export interface Effort {
  readonly algorithm: (typeof ALGORITHMS)[number];
  /** Iterations a candidate. */
  readonly cost: number;
  /** The reference visitor's compute time for this very challenge (its solution's counter). */
  readonly expectedSolveMs: number;
  /** Measured by the server: from issuing the challenge to the exchange of its solution. */
  readonly solveMs: number;
  /** The surge level that raised the challenge (0: none). */
  readonly surgeLevel: number;
}

export interface NonceFields {
  readonly accountId: string;
  /** 32 hex characters: the token's identity for single use. */
  readonly id: string;
  /** Seconds since the epoch. */
  readonly issuedAt: number;
  /** Seconds since the epoch. */
  readonly expiresAt: number;
  readonly hostname: string | null;
  /** Null only for version 1 tokens, issued before effort was recorded. */
  readonly effort: Effort | null;
}

/** The keys nonces are signed with, one per widget secret (the first signs, all verify); not the secrets themselves. */
export function nonceKeys(widgetSecrets: readonly string[]): Buffer[] {
  return widgetSecrets.map((secret) => createHmac('sha256', secret).update('gatehouse nonce v1').digest());
}

export const newNonceId = (): string => randomBytes(16).toString('hex');

const clampUint32 = (n: number): number => Math.min(UINT32_MAX, Math.max(0, Math.round(n)));

export function signNonce(fields: NonceFields & { readonly effort: Effort }, key: Buffer): string {
  const host = Buffer.from(fields.hostname ?? '', 'utf8');
  if (host.length > MAX_HOSTNAME_BYTES) throw new RangeError('hostname longer than 253 bytes');
  const body = Buffer.alloc(HEAD_BYTES + host.length);
  body[0] = VERSION;
  Buffer.from(fields.accountId.replace(/-/g, ''), 'hex').copy(body, 1);
  Buffer.from(fields.id, 'hex').copy(body, 17);
  body.writeUInt32BE(fields.issuedAt, 33);
  body.writeUInt32BE(fields.expiresAt, 37);
  const e = fields.effort;
  body[41] = ALGORITHMS.indexOf(e.algorithm) + 1;
  body.writeUInt32BE(clampUint32(e.cost), 42);
  body.writeUInt32BE(clampUint32(e.expectedSolveMs), 46);
  body.writeUInt32BE(clampUint32(e.solveMs), 50);
  body[54] = Math.min(255, e.surgeLevel);
  host.copy(body, HEAD_BYTES);
  const mac = createHmac('sha256', key).update(body).digest();
  return NONCE_PREFIX + Buffer.concat([body, mac]).toString('base64url');
}

/** The fields of a token one of `keys` signed, or undefined for any other string. */
export function readNonce(token: string, keys: readonly Buffer[]): NonceFields | undefined {
  if (token.length > NONCE_TOKEN_MAX_LENGTH || !TOKEN_PATTERN.test(token)) return undefined;
  const bytes = Buffer.from(token.slice(NONCE_PREFIX.length), 'base64url');
  const version = bytes[0];
  const head = version === VERSION ? HEAD_BYTES : version === 1 ? V1_HEAD_BYTES : undefined;
  if (head === undefined || bytes.length < head + MAC_BYTES) return undefined;
  const body = bytes.subarray(0, bytes.length - MAC_BYTES);
  const mac = bytes.subarray(bytes.length - MAC_BYTES);
  if (!keys.some((key) => timingSafeEqual(createHmac('sha256', key).update(body).digest(), mac))) return undefined;
  const algorithm = version === VERSION ? ALGORITHMS[body[41] - 1] : undefined;
  if (version === VERSION && algorithm === undefined) return undefined;
  const hex = body.toString('hex', 1, 17);
  return {
    accountId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    id: body.toString('hex', 17, 33),
    issuedAt: body.readUInt32BE(33),
    expiresAt: body.readUInt32BE(37),
    hostname: body.length > head ? body.toString('utf8', head) : null,
    effort:
      algorithm === undefined
        ? null
        : {
            algorithm,
            cost: body.readUInt32BE(42),
            expectedSolveMs: body.readUInt32BE(46),
            solveMs: body.readUInt32BE(50),
            surgeLevel: body[54],
          },
  };
}
