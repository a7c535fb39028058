import { createSecretKey, KeyObject, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { sign } from 'jsonwebtoken';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { resolveJwtSecret } from '../config/secrets';

export interface TokenPayload {
  readonly sub: string;
  /** Token version of the user when issued (see User.tokenVersion). */
  readonly sv: number;
  /** The token's own id: what sign-out revokes (RevokedToken). */
  readonly jti: string;
  readonly iat?: number;
  readonly exp?: number;
}

@Injectable()
export class TokenService {
  /**
   * The secret as a KeyObject, for signing and verifying: given a string, jsonwebtoken 9 first
   * tries to parse it as a PEM public/private key and only falls back to a secret after that throws
   * — on every token, most of the ~700 µs a JWT request cost (docs/PERFORMANCE.md, "JWT requests and logins").
   */
  readonly key: KeyObject;
  readonly issuer: string;
  readonly audience: string;
  readonly expiresIn: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.key = createSecretKey(Buffer.from(resolveJwtSecret(config)));
    this.issuer = config.jwt.issuer;
    this.audience = config.jwt.audience;
    this.expiresIn = config.jwt.expiresIn;
  }

  /** A token for `user`; `jti` is its session's id (SessionService); `expiresIn` shorter than JWT_EXPIRES_IN for one taken through the session cookie. */
  issue(
    user: { id: string; tokenVersion: number },
    jti: string = randomUUID(),
    expiresIn = this.expiresIn,
  ): { token: string; expiresIn: number } {
    const token = sign({ sv: user.tokenVersion }, this.key, {
      algorithm: 'HS256',
      subject: user.id,
      issuer: this.issuer,
      audience: this.audience,
      expiresIn,
      jwtid: jti,
    });
    return { token, expiresIn };
  }
}
