import { Inject, Injectable } from '@nestjs/common';
import { sign } from 'jsonwebtoken';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { resolveJwtSecret } from '../config/jwt-secret';

export interface TokenPayload {
  readonly sub: string;
  /** Token version of the user when issued (see User.tokenVersion). */
  readonly sv: number;
  readonly iat?: number;
  readonly exp?: number;
}

@Injectable()
export class TokenService {
  readonly secret: string;
  readonly issuer: string;
  readonly audience: string;
  readonly expiresIn: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.secret = resolveJwtSecret(config);
    this.issuer = config.jwt.issuer;
    this.audience = config.jwt.audience;
    this.expiresIn = config.jwt.expiresIn;
  }

  issue(user: { id: string; tokenVersion: number }): { token: string; expiresIn: number } {
    const token = sign({ sv: user.tokenVersion }, this.secret, {
      algorithm: 'HS256',
      subject: user.id,
      issuer: this.issuer,
      audience: this.audience,
      expiresIn: this.expiresIn,
    });
    return { token, expiresIn: this.expiresIn };
  }
}
