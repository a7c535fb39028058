import { createHmac } from 'node:crypto';
import { NONCE_TOKEN_MAX_LENGTH, newNonceId, nonceKeys, readNonce, signNonce } from './nonce-token';

const [key, rotated] = nonceKeys(['first widget secret of at least thirty-two bytes', 'second widget secret of at least thirty-two bytes']);
const fields = {
  accountId: '6f1c2b3a-0d4e-4f5a-8b6c-7d8e9f0a1b2c',
  id: newNonceId(),
  issuedAt: 1_800_000_000,
  expiresAt: 1_800_000_300,
  hostname: 'shop.example.com',
  effort: { algorithm: 'PBKDF2/SHA-256' as const, cost: 1000, expectedSolveMs: 412, solveMs: 530, surgeLevel: 1 },
};

describe('nonce tokens', () => {
  it('reads back what was signed', () => {
    expect(readNonce(signNonce(fields, key), [key])).toEqual(fields);
    expect(readNonce(signNonce({ ...fields, hostname: null }, key), [key])).toEqual({ ...fields, hostname: null });
  });

  it('verifies with any of the keys, so a rotated secret’s nonces stay good while it is listed', () => {
    expect(readNonce(signNonce(fields, rotated), [key, rotated])).toEqual(fields);
    expect(readNonce(signNonce(fields, rotated), [key])).toBeUndefined();
  });

  it('reads a version 1 token (issued before effort was recorded) with effort null', () => {
    const body = Buffer.alloc(41 + 16);
    body[0] = 1;
    Buffer.from(fields.accountId.replace(/-/g, ''), 'hex').copy(body, 1);
    Buffer.from(fields.id, 'hex').copy(body, 17);
    body.writeUInt32BE(fields.issuedAt, 33);
    body.writeUInt32BE(fields.expiresAt, 37);
    body.write(fields.hostname, 41);
    const token = `ghn_${Buffer.concat([body, createHmac('sha256', key).update(body).digest()]).toString('base64url')}`;
    expect(readNonce(token, [key])).toEqual({ ...fields, effort: null });
  });

  it('refuses a token whose body or signature was changed', () => {
    const token = signNonce(fields, key);
    const bytes = Buffer.from(token.slice(4), 'base64url');
    for (const at of [1, 20, 35, 40, 41, 45, 50, 54, 58, bytes.length - 1]) {
      const changed = Buffer.from(bytes);
      changed[at] ^= 1;
      expect(readNonce(`ghn_${changed.toString('base64url')}`, [key])).toBeUndefined();
    }
  });

  it('refuses strings that are not tokens', () => {
    for (const s of [
      '',
      'ghn_',
      'ghn_AAAA',
      'ghn_' + 'A'.repeat(43),
      'nonce',
      signNonce(fields, key).replace('ghn_', 'ghx_'),
      'ghn_' + 'A'.repeat(600),
    ]) {
      expect(readNonce(s, [key])).toBeUndefined();
    }
  });

  it('stays within the documented length with the longest hostname', () => {
    const token = signNonce({ ...fields, hostname: `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}` }, key);
    expect(token.length).toBeLessThanOrEqual(NONCE_TOKEN_MAX_LENGTH);
    expect(NONCE_TOKEN_MAX_LENGTH).toBe(458);
    expect(() => signNonce({ ...fields, hostname: 'x'.repeat(254) }, key)).toThrow(RangeError);
  });

  it('holds no secret: the keys are derived, not the widget secrets', () => {
    const token = signNonce(fields, key);
    expect(Buffer.from(token.slice(4), 'base64url').toString('latin1')).not.toContain('widget secret');
  });
});
