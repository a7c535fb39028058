import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Seals small secrets (TOTP secrets) for storage with AES-256-GCM under a key derived from the
 * operator's MFA key (MFA_ENCRYPTION_KEY), and keys one-way hashes of recovery codes with it, so a
 * copy of the database alone reveals neither.
 */
export class SecretBox {
  private readonly sealKey: Buffer;
  private readonly hashKey: Buffer;

  constructor(secret: string) {
    const ikm = Buffer.from(secret);
    this.sealKey = Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), 'gatehouse mfa seal', 32));
    this.hashKey = Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), 'gatehouse mfa hash', 32));
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url; `context` (e.g. the user id) is bound to it as additional data. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv).setAAD(Buffer.from(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  /** The plaintext, or undefined when the sealed value was made with another key, for another context, or altered. */
  open(sealed: string, context: string): string | undefined {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.sealKey, Buffer.from(iv, 'base64url'))
        .setAAD(Buffer.from(context))
        .setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }

  /** HMAC-SHA256 (hex) of `value` under the hash key. */
  hash(value: string): string {
    return createHmac('sha256', this.hashKey).update(value).digest('hex');
  }
}
